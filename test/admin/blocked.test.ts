// A blocked account has no way back in: its access tokens stop at the next request (the block is
// part of the per-request session check), and sign-in by code or password, refresh and send-code
// answer 403 ACCOUNT_BLOCKED once the code or password was right; a wrong password is still
// INVALID_CREDENTIALS and a wrong code INVALID_CODE, so the answer tells nothing to a guesser.
// Nothing is counted, no session is made, no SMS is sent. Unblocked, the account signs in again.
// The block is set on the row here; the operators' route that sets it (and ends the sessions in the
// same transaction) has tests of its own. Both transports.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { clearRateLimits, GOOD_PASSWORD, registerUser, requestCode, type Session } from '../helpers/factories.js';
import { type TestServer, useTestServer } from '../helpers/server.js';
import { refusal, type Transport, TRANSPORTS } from './support.js';

const t = useTestServer();
beforeEach(() => t.reset());

const gql = (query: string, variables: Record<string, unknown>, token?: string) =>
  t.http.post('/graphql', { query, variables }, { token });

const api = {
  me: (transport: Transport, token: string) =>
    transport === 'REST' ? t.http.get('/api/v1/users/me', { token }) : gql('{ me { id role } }', {}, token),
  sendCode: (transport: Transport, phone: string, purpose: string) =>
    transport === 'REST'
      ? t.http.post('/api/v1/auth/send-code', { phone, purpose })
      : gql('mutation($i: SendCodeInput!) { sendCode(input: $i) { expiresIn } }', { i: { phone, purpose: purpose.toUpperCase().replace('-', '_') } }),
  login: (transport: Transport, phone: string, code: string) =>
    transport === 'REST'
      ? t.http.post('/api/v1/auth/login', { phone, code })
      : gql('mutation($i: CodeLoginInput!) { login(input: $i) { accessToken } }', { i: { phone, code } }),
  loginWithPassword: (transport: Transport, phone: string, password: string) =>
    transport === 'REST'
      ? t.http.post('/api/v1/auth/login-password', { phone, password })
      : gql('mutation($i: PasswordLoginInput!) { loginWithPassword(input: $i) { accessToken } }', { i: { phone, password } }),
  refresh: (transport: Transport, refreshToken: string) =>
    transport === 'REST'
      ? t.http.post('/api/v1/auth/refresh', { refreshToken })
      : gql('mutation($r: String!) { refreshToken(refreshToken: $r) { accessToken } }', { r: refreshToken }),
};

const block = (userId: string) => t.sql(`update users set blocked_at = now(), blocked_reason = 'spam' where id = $1`, [userId]);
const unblock = (userId: string) => t.sql('update users set blocked_at = null, blocked_reason = null where id = $1', [userId]);
const loginCount = async (userId: string) => (await t.sql<{ n: number }>('select login_count as n from users where id = $1', [userId]))[0]!.n;
const liveSessions = async (userId: string) =>
  (await t.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = $1 and revoked_at is null', [userId]))[0]!.n;

describe.each(TRANSPORTS)('a blocked account over %s', (transport) => {
  let user: Session;
  beforeEach(async () => {
    user = await registerUser(t);
  });

  it('has role USER until an operator gives it another, seen on the next request with the same token', async () => {
    const role = async () => {
      const res = await api.me(transport, user.accessToken);
      expect(res.status).toBe(200);
      return transport === 'REST' ? res.body.role : res.body.data.me.role;
    };
    expect(await role()).toBe('USER');
    await t.sql(`update users set role = 'SUPPORT' where id = $1`, [user.userId]);
    expect(await role()).toBe('SUPPORT');
  });

  it('loses its access tokens at the next request, even with its sessions still on record', async () => {
    expect((await api.me(transport, user.accessToken)).status).toBe(200);
    await block(user.userId);
    refusal(await api.me(transport, user.accessToken), transport, 'UNAUTHENTICATED');
    await unblock(user.userId);
    expect((await api.me(transport, user.accessToken)).status).toBe(200);
  });

  it('gets no code sent for any purpose: ACCOUNT_BLOCKED, and no SMS', async () => {
    await block(user.userId);
    const sentBefore = (await t.outbox()).length;
    const codeSentEvents = async () => (await t.sql<{ n: number }>(`select count(*)::int as n from security_events where type = 'CODE_SENT'`))[0]!.n;
    const eventsBefore = await codeSentEvents();
    for (const purpose of ['login', 'register', 'reset-password', 'delete-account']) {
      refusal(await api.sendCode(transport, user.phone, purpose), transport, 'ACCOUNT_BLOCKED');
    }
    expect((await t.outbox()).length).toBe(sentBefore);
    expect(await codeSentEvents()).toBe(eventsBefore);
  });

  it('answers a right code with ACCOUNT_BLOCKED and a wrong one with INVALID_CODE, counting no sign-in', async () => {
    await clearRateLimits(t); // the registration's code was sent a moment ago
    const code = await requestCode(t, user.phone);
    await block(user.userId);
    const before = await loginCount(user.userId);
    refusal(await api.login(transport, user.phone, code === '000000' ? '111111' : '000000'), transport, 'INVALID_CODE');
    refusal(await api.login(transport, user.phone, code), transport, 'ACCOUNT_BLOCKED');
    expect(await loginCount(user.userId)).toBe(before);
    expect(await liveSessions(user.userId)).toBe(1); // the registration's; no new one
  });

  it('answers the right password with ACCOUNT_BLOCKED and a wrong one with INVALID_CREDENTIALS', async () => {
    await block(user.userId);
    refusal(await api.loginWithPassword(transport, user.phone, `${GOOD_PASSWORD}-not`), transport, 'INVALID_CREDENTIALS');
    refusal(await api.loginWithPassword(transport, user.phone, GOOD_PASSWORD), transport, 'ACCOUNT_BLOCKED');
    expect(await liveSessions(user.userId)).toBe(1);
    await unblock(user.userId);
    expect((await api.loginWithPassword(transport, user.phone, GOOD_PASSWORD)).status).toBe(200);
  });

  it('answers a refresh with ACCOUNT_BLOCKED, with its session on record and once it has ended', async () => {
    await block(user.userId);
    refusal(await api.refresh(transport, user.refreshToken), transport, 'ACCOUNT_BLOCKED');
    await t.sql('update sessions set revoked_at = now() where user_id = $1', [user.userId]);
    refusal(await api.refresh(transport, user.refreshToken), transport, 'ACCOUNT_BLOCKED');
    // A token nobody issued is still just invalid.
    refusal(await api.refresh(transport, 'x'.repeat(43)), transport, 'UNAUTHENTICATED');
  });

  it('refuses the refresh of a blocked account before it rotates: the token is left unused, and works once unblocked', async () => {
    await block(user.userId);
    refusal(await api.refresh(transport, user.refreshToken), transport, 'ACCOUNT_BLOCKED');
    expect(await t.sql('select 1 from refresh_tokens r join sessions s on s.id = r.session_id where s.user_id = $1 and r.used_at is not null', [user.userId])).toEqual([]);
    await unblock(user.userId);
    const res = await api.refresh(transport, user.refreshToken);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('accessToken');
  });
});
