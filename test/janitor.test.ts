import { describe, expect, it } from '@jest/globals';
import { sweepExpired } from '../src/db/janitor.js';
import { requestCode, signInWithCode } from './helpers/factories.js';
import { newPhone, useTestServer } from './helpers/server.js';

const t = useTestServer();

describe('expired-row sweeping', () => {
  it('deletes ended windows, old codes, expired refresh tokens and long-ended sessions, and nothing live', async () => {
    const live = await signInWithCode(t);
    const ended = await signInWithCode(t);
    await requestCode(t, newPhone());
    await t.sql(`update rate_limits set reset_at = now() - interval '1 second' where key like '%:interval'`);
    await t.sql(`update verification_codes set expires_at = now() - interval '2 days' where phone = $1`, [ended.phone]);
    await t.sql(`update sessions set revoked_at = now() - interval '8 days' where user_id = $1`, [ended.userId]);
    await t.sql(`update refresh_tokens set expires_at = now() - interval '1 second'
                  where session_id in (select id from sessions where user_id = $1)`, [ended.userId]);

    const deleted = await sweepExpired(t.server.services.sweepers);

    expect(deleted.rateLimits).toBeGreaterThanOrEqual(3);
    expect(deleted).toMatchObject({ codes: 1, refreshTokens: 1, sessions: 1 });
    expect(await t.sql('select user_id from sessions')).toEqual([{ user_id: live.userId }]);
    const me = await t.http.get('/api/v1/users/me', { token: live.accessToken });
    expect(me.status).toBe(200);
    const refreshed = await t.http.post('/api/v1/auth/refresh', { refreshToken: live.refreshToken });
    expect(refreshed.status).toBe(200);
  });
});
