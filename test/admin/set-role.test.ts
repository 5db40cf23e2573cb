// An ADMIN gives another account a role through the API (PUT /admin/users/{id}/role, adminSetRole):
// seen on that account's next request, recorded as ROLE_CHANGED in its events without the admin's
// address; never one's own role; SUPPORT and USER are FORBIDDEN; a role that does not exist, a
// malformed or unknown id are refused with nothing changed. Both transports.
import { beforeEach, describe, expect, it } from '@jest/globals';
import { registerUser, type Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { refusal, type Transport, TRANSPORTS, UNKNOWN_ID } from './support.js';

const t = useTestServer();
beforeEach(() => t.reset());

function setRole(transport: Transport, token: string | undefined, id: string, role: string): Promise<HttpResult> {
  return transport === 'REST'
    ? t.http.request('PUT', `/api/v1/admin/users/${encodeURIComponent(id)}/role`, { token, body: { role } })
    : t.http.post(
        '/graphql',
        { query: 'mutation($id: ID!, $role: Role!) { adminSetRole(id: $id, role: $role) { id role status activeSessions } }', variables: { id, role } },
        { token },
      );
}

const roleOf = async (id: string) => (await t.sql<{ role: string }>('select role from users where id = $1', [id]))[0]!.role;
const grant = (id: string, role: string) => t.sql('update users set role = $2 where id = $1', [id, role]);

describe.each(TRANSPORTS)('setting a role over %s', (transport) => {
  let admin: Session;
  let user: Session;
  beforeEach(async () => {
    admin = await registerUser(t);
    user = await registerUser(t);
    await grant(admin.userId, 'ADMIN');
  });

  it('gives the role, seen on the account next request with its token, and records ROLE_CHANGED without the admin address', async () => {
    const res = await setRole(transport, admin.accessToken, user.userId, 'SUPPORT');
    expect(res.status).toBe(200);
    const body = transport === 'REST' ? res.body : res.body.data.adminSetRole;
    expect(body).toMatchObject({ id: user.userId, role: 'SUPPORT', status: 'ACTIVE', activeSessions: 1 });
    const me = await t.http.get('/api/v1/users/me', { token: user.accessToken });
    expect(me.body.role).toBe('SUPPORT');
    const events = await t.sql<{ ip: string | null; user_agent: string | null; request_id: string | null }>(
      `select ip, user_agent, request_id from security_events where user_id = $1 and type = 'ROLE_CHANGED'`,
      [user.userId],
    );
    expect(events).toEqual([{ ip: null, user_agent: null, request_id: expect.any(String) }]);
    // The same role again changes nothing and records nothing.
    expect((await setRole(transport, admin.accessToken, user.userId, 'SUPPORT')).status).toBe(200);
    expect(await t.sql(`select 1 from security_events where user_id = $1 and type = 'ROLE_CHANGED'`, [user.userId])).toHaveLength(1);
  });

  it("refuses the admin's own role, SUPPORT and USER callers, a role that does not exist, a malformed and an unknown id", async () => {
    refusal(await setRole(transport, admin.accessToken, admin.userId, 'USER'), transport, 'FORBIDDEN');
    expect(await roleOf(admin.userId)).toBe('ADMIN');
    refusal(await setRole(transport, user.accessToken, user.userId, 'ADMIN'), transport, 'FORBIDDEN');
    await grant(user.userId, 'SUPPORT');
    refusal(await setRole(transport, user.accessToken, admin.userId, 'USER'), transport, 'FORBIDDEN');
    refusal(await setRole(transport, admin.accessToken, user.userId, 'OWNER'), transport, 'VALIDATION_FAILED');
    refusal(await setRole(transport, admin.accessToken, 'not-an-id', 'USER'), transport, 'VALIDATION_FAILED');
    refusal(await setRole(transport, admin.accessToken, UNKNOWN_ID, 'USER'), transport, 'NOT_FOUND');
    expect([await roleOf(admin.userId), await roleOf(user.userId)]).toEqual(['ADMIN', 'SUPPORT']);
  });

  it('refuses a caller without a token and a blocked admin with UNAUTHENTICATED, changing nothing', async () => {
    refusal(await setRole(transport, undefined, user.userId, 'ADMIN'), transport, 'UNAUTHENTICATED');
    await t.sql('update users set blocked_at = now() where id = $1', [admin.userId]);
    refusal(await setRole(transport, admin.accessToken, user.userId, 'ADMIN'), transport, 'UNAUTHENTICATED');
    expect(await roleOf(user.userId)).toBe('USER');
  });

  it('stops a demoted admin on their next call', async () => {
    await grant(admin.userId, 'USER');
    refusal(await setRole(transport, admin.accessToken, user.userId, 'SUPPORT'), transport, 'FORBIDDEN');
    expect(await roleOf(user.userId)).toBe('USER');
  });
});
