// API.md 9.0: an id is made canonical (UUIDs in lower case) once, where it enters, on both
// transports: `E7C6EF1B-...` and `e7c6ef1b-...` are the same account to every check, and no audit
// entry, security event or webhook payload carries the caller's spelling. The operators' guards
// against acting on their own account are tested in every spelling, role and operation by
// test/admin/self-id-matrix.test.ts; here, what each spelling leaves behind.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dataOf } from '../graphql/support.js';
import { GOOD_PASSWORD, registerUser, type Session } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';
import { refusal, TRANSPORTS, withRole, type Transport } from '../admin/support.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const t = useTestServer(() => webhookEnv([receiver.url]));

/** Upper case, and every other letter upper case: two spellings PostgreSQL reads as the same uuid. */
const UPPER = (id: string) => id.toUpperCase();
const MIXED = (id: string) => [...id].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');

/** Every id-shaped string anywhere in `value`: none may be spelled other than in lower case. */
function idsIn(value: unknown): string[] {
  return JSON.stringify(value).match(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g) ?? [];
}

async function outbox(): Promise<{ eventType: string; payload: any }[]> {
  return t.sql<{ eventType: string; payload: any }>('select event_type as "eventType", payload from webhook_deliveries order by seq');
}

async function auditDetails(): Promise<{ target: string | null; detail: any }[]> {
  return t.sql<{ target: string | null; detail: any }>('select target_user_id as target, detail from audit_log order by id');
}

function adminCall(transport: Transport, admin: Session, op: 'block' | 'role' | 'delete', id: string) {
  if (transport === 'GraphQL') {
    const query = {
      block: 'mutation($id: ID!) { r: adminBlockUser(id: $id, reason: "spam") { id status } }',
      role: 'mutation($id: ID!) { r: adminSetRole(id: $id, role: SUPPORT) { id role } }',
      delete: 'mutation($id: ID!) { r: adminDeleteUser(id: $id) }',
    }[op];
    return t.http.post('/graphql', { query, variables: { id } }, { token: admin.accessToken });
  }
  const path = `/api/v1/admin/users/${id}`;
  if (op === 'block') return t.http.post(`${path}/block`, { reason: 'spam' }, { token: admin.accessToken });
  if (op === 'role') return t.http.request('PUT', `${path}/role`, { token: admin.accessToken, body: { role: 'SUPPORT' } });
  return t.http.request('DELETE', path, { token: admin.accessToken });
}

describe.each(TRANSPORTS)('ids in any spelling, over %s', (transport) => {
  it.each([
    ['upper case', UPPER],
    ['mixed case', MIXED],
  ])("an ADMIN writing their own id in %s can neither block, demote nor delete themself", async (_name, spell) => {
    const admin = await withRole(t, 'ADMIN');
    const before = await outbox();
    for (const op of ['block', 'role', 'delete'] as const) {
      refusal(await adminCall(transport, admin, op, spell(admin.userId)), transport, 'FORBIDDEN');
    }
    const [row] = await t.sql<{ role: string; blocked: boolean }>('select role, blocked_at is not null as blocked from users where id = $1', [admin.userId]);
    expect(row).toEqual({ role: 'ADMIN', blocked: false });
    expect((await t.http.get('/api/v1/users/me', { token: admin.accessToken })).status).toBe(200);
    expect(await outbox()).toEqual(before);
  });

  it("another account named in upper case is acted on, and every audit entry and webhook names it in lower case", async () => {
    const admin = await withRole(t, 'ADMIN');
    const user = await registerUser(t);
    const before = (await outbox()).length;
    const blocked = await adminCall(transport, admin, 'block', UPPER(user.userId));
    expect(transport === 'REST' ? blocked.body.id : (dataOf(blocked) as any).r.id).toBe(user.userId);
    expect((await adminCall(transport, admin, 'role', MIXED(user.userId))).status).toBe(200);
    const deleted = await adminCall(transport, admin, 'delete', UPPER(user.userId));
    expect(deleted.status).toBe(transport === 'REST' ? 204 : 200);
    const events = (await outbox()).slice(before);
    expect(events.map((e) => e.eventType)).toEqual(['user.blocked', 'session.revoked', 'user.updated', 'user.deleted']);
    expect(events.find((e) => e.eventType === 'session.revoked')!.payload).toEqual({ userId: user.userId, all: true });
    expect(events.find((e) => e.eventType === 'user.deleted')!.payload).toEqual({ userId: user.userId });
    const audit = (await auditDetails()).filter((entry) => entry.target === user.userId);
    expect(audit).toHaveLength(3);
    for (const spelled of idsIn([events, audit])) expect(spelled).toBe(spelled.toLowerCase());
  });

  it("a session of one's own named in upper case ends, and its event and webhook name it in lower case", async () => {
    const user = await registerUser(t);
    const second = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD }).then((res) => res.body);
    const [{ sid }] = await t.sql<{ sid: string }>('select id as sid from sessions where user_id = $1 order by created_at desc limit 1', [user.userId]);
    const spelled = UPPER(sid!);
    const res =
      transport === 'REST'
        ? await t.http.request('DELETE', `/api/v1/users/me/sessions/${spelled}`, { token: user.accessToken })
        : await t.http.post('/graphql', { query: 'mutation($id: ID!) { revokeSession(id: $id) }', variables: { id: spelled } }, { token: user.accessToken });
    expect(res.status).toBe(transport === 'REST' ? 204 : 200);
    expect((await t.http.get('/api/v1/users/me', { token: second.accessToken })).status).toBe(401);
    const revoked = (await outbox()).filter((e) => e.eventType === 'session.revoked');
    expect(revoked.map((e) => e.payload)).toEqual([{ userId: user.userId, sessionId: sid }]);
    const [event] = await t.sql<{ sessionId: string }>(`select session_id as "sessionId" from security_events where user_id = $1 and type = 'SESSION_REVOKED'`, [user.userId]);
    expect(event!.sessionId).toBe(sid);
  });
});
