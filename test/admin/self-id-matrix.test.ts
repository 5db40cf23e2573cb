// Who may do what to which account, whatever the spelling of its id (API.md 9.0: an id is normalised
// where it enters, and no check compares the caller's spelling). For each role (USER, SUPPORT, ADMIN)
// and each operator action on one account, over both transports (REST: every route of the OpenAPI
// document under /api/v1/admin/users/{id}; GraphQL: adminUser and its sessions and securityEvents,
// adminBlockUser, adminUnblockUser, adminSetRole, adminChangePhone, adminRevokeSessions, adminDeleteUser), the caller
// names their OWN account in lower case, UPPER CASE, Mixed Case and, on REST, with percent-encoded
// letters (`%45` for `E`), and ANOTHER account in lower and upper case, each time as a new caller
// acting on a new account. Every spelling gets the answer of the lower-case one; what the contract
// settles holds in every spelling (USER is FORBIDDEN everywhere; SUPPORT reads accounts, ends a
// USER's sessions and nothing more; no operator blocks, deletes, changes the role or the phone number
// of their own account); the caller's role and status are what they were; a refusal changed nothing; and every
// audit entry, security event, webhook outbox row and answer names ids in lower case.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { percentEncoded, SPELLINGS } from '../fuzz/sweep-ids.js';
import { nonCanonicalIds, StateProbe } from '../fuzz/sweep-state.js';
import type { JsonSchema } from '../fuzz/values.js';
import type { HttpResult } from '../helpers/http.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import { type Role, type Transport, TRANSPORTS, withRole } from './support.js';

type Op = 'view' | 'sessions' | 'events' | 'revoke' | 'block' | 'unblock' | 'role' | 'phone' | 'delete';
type Whose = 'own' | 'another';
const ROLES: Role[] = ['USER', 'SUPPORT', 'ADMIN'];
const USER_ROUTES = '/api/v1/admin/users/{id}';

/** The operator actions on one account, by what follows `users/{id}` on REST. */
const REST_OPS: Record<string, Op> = {
  'GET ': 'view',
  'GET /sessions': 'sessions',
  'GET /security-events': 'events',
  'POST /sessions/revoke': 'revoke',
  'POST /block': 'block',
  'POST /unblock': 'unblock',
  'PUT /role': 'role',
  'POST /phone': 'phone',
  'DELETE ': 'delete',
};
const GRAPHQL: Record<Op, string> = {
  view: 'query($id: ID!) { r: adminUser(id: $id) { id role status } }',
  sessions: 'query($id: ID!) { r: adminUser(id: $id) { id sessions { id } } }',
  events: 'query($id: ID!) { r: adminUser(id: $id) { id securityEvents(first: 5) { edges { node { id type } } } } }',
  revoke: 'mutation($id: ID!) { r: adminRevokeSessions(id: $id) }',
  block: 'mutation($id: ID!, $reason: String!) { r: adminBlockUser(id: $id, reason: $reason) { id status } }',
  unblock: 'mutation($id: ID!) { r: adminUnblockUser(id: $id) { id status } }',
  role: 'mutation($id: ID!, $role: Role!) { r: adminSetRole(id: $id, role: $role) { id role } }',
  phone: 'mutation($id: ID!, $phone: String!, $reason: String!) { r: adminChangePhone(id: $id, phone: $phone, reason: $reason) { id status } }',
  delete: 'mutation($id: ID!) { r: adminDeleteUser(id: $id) }',
};

/**
 * What the contract settles for a role, an action and whose account (README, "The operators' API"):
 * FORBIDDEN, a success, or nothing beyond "as the lower-case spelling" (an ADMIN ending or unblocking
 * their own account's sessions or block; an action this matrix does not know).
 */
function settled(role: Role, op: Op | undefined, whose: Whose): 'FORBIDDEN' | 'success' | undefined {
  if (role === 'USER') return 'FORBIDDEN';
  if (op === 'view' || op === 'sessions' || op === 'events') return 'success';
  if (role === 'SUPPORT') return op === 'revoke' ? (whose === 'own' ? 'FORBIDDEN' : 'success') : op ? 'FORBIDDEN' : undefined;
  if (op === 'block' || op === 'role' || op === 'phone' || op === 'delete') return whose === 'own' ? 'FORBIDDEN' : 'success';
  return whose === 'another' && op ? 'success' : undefined;
}

let receiver: Receiver;
let probe: StateProbe;
beforeAll(async () => {
  receiver = await startReceiver();
});
const t = useTestServer(() => ({ ...webhookEnv([receiver.url]), SEND_CODE_INTERVAL_SECONDS: '0', SEND_CODE_PER_IP_HOURLY: '100000' }));

interface Route {
  method: string;
  template: string;
  op: Op | undefined;
  body?: JsonSchema;
}
let routes: Route[] = [];

beforeAll(async () => {
  probe = await StateProbe.open(process.env.TEST_WORKER_DATABASE_URL!);
  const document = (await t.http.get('/api/v1/openapi.json')).body as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  };
  routes = Object.entries(document.paths)
    .filter(([template]) => template.startsWith(USER_ROUTES))
    .flatMap(([template, operations]) =>
      Object.entries(operations)
        .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          template,
          op: REST_OPS[`${method.toUpperCase()} ${template.slice(USER_ROUTES.length)}`],
          body: operation.requestBody?.content['application/json']?.schema,
        })),
    );
});
afterAll(async () => {
  await probe?.close();
  await receiver?.close();
});

/** The role an action of `role` gives: another account SUPPORT; one's own, the other end of the scale. */
const roleToGive = (role: Role, whose: Whose) => (whose === 'another' ? 'SUPPORT' : role === 'ADMIN' ? 'USER' : 'ADMIN');

/** A body for `schema` with the values this matrix gives by field name; throws on a required field it does not know. */
function bodyFor(schema: JsonSchema | undefined, role: Role, whose: Whose): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  const values: Record<string, unknown> = { reason: 'self-id matrix', role: roleToGive(role, whose), phone: newPhone() };
  const unknown = (schema.required ?? []).filter((name) => !(name in values));
  if (unknown.length > 0) throw new Error(`the matrix gives no value to ${unknown.join(', ')}`);
  return Object.fromEntries(Object.keys(schema.properties ?? {}).filter((name) => name in values).map((name) => [name, values[name]]));
}

/** One action as `token`'s caller (with `role`) on the account of `id` (spelled as sent): a REST route, or a GraphQL operation by name. */
function call(action: Route | Op, token: string, id: string, role: Role, whose: Whose): Promise<HttpResult> {
  if (typeof action === 'string') {
    const variables = {
      id,
      ...((action === 'block' || action === 'phone') && { reason: 'self-id matrix' }),
      ...(action === 'role' && { role: roleToGive(role, whose) }),
      ...(action === 'phone' && { phone: newPhone() }),
    };
    return t.http.post('/graphql', { query: GRAPHQL[action], variables }, { token });
  }
  return t.http.request(action.method, action.template.replace('{id}', id), { token, body: bodyFor(action.body, role, whose) });
}

/** An answer as the matrix compares it: status and error code, or `success`. */
function answerOf(transport: Transport, res: HttpResult): string {
  if (transport === 'REST') return res.status < 300 ? `${res.status} success` : `${res.status} ${res.body?.code}`;
  const errors: { extensions?: { code?: string } }[] = res.body?.errors ?? [];
  return errors.length === 0 ? `${res.status} success` : `${res.status} ${errors.map((e) => e.extensions?.code).join(', ')}`;
}

/** Runs every action of `transport` as a new caller with `role` on their own and another new account, in every spelling; returns what went wrong. */
async function matrix(role: Role, transport: Transport): Promise<string[]> {
  const problems: string[] = [];
  const actions: [string, Route | Op, Op | undefined][] =
    transport === 'REST' ? routes.map((r) => [`${r.method} ${r.template}`, r, r.op]) : (Object.keys(GRAPHQL) as Op[]).map((op) => [op, op, op]);
  for (const [name, action, op] of actions) {
    for (const whose of ['own', 'another'] as Whose[]) {
      const spellings = Object.entries(SPELLINGS).filter(([label]) => whose === 'own' || label !== 'Mixed Case');
      if (transport === 'REST' && whose === 'own') spellings.push(['percent-encoded letters', percentEncoded]);
      let lower: string | undefined;
      for (const [label, spell] of spellings) {
        const caller = await withRole(t, role);
        const other = await withRole(t, 'USER');
        const id = whose === 'own' ? caller.userId : other.userId;
        const before = await probe.snapshot();
        const res = await call(action, caller.accessToken, spell(id), role, whose);
        const after = await probe.snapshot();
        const answer = answerOf(transport, res);
        const what = `${role} ${name} on ${whose === 'own' ? 'their own' : "another's"} id in ${label}`;
        const expected = settled(role, op, whose);
        lower ??= answer;
        if (expected === 'FORBIDDEN' && !answer.endsWith(' FORBIDDEN')) problems.push(`${what}: answered ${answer}, not FORBIDDEN`);
        else if (expected === 'success' && !answer.endsWith(' success')) problems.push(`${what}: answered ${answer}, not a success`);
        else if (answer !== lower) problems.push(`${what}: answered ${answer}, where the lower-case id answers ${lower}`);
        const [state] = await t.sql<{ role: string; blocked: boolean }>('select role, blocked_at is not null as blocked from users where id = $1', [caller.userId]);
        if (!state) problems.push(`${what}: the caller's account is gone`);
        else if (state.role !== role || state.blocked) problems.push(`${what}: the caller is now ${state.role}${state.blocked ? ', blocked' : ''}`);
        if (!answer.endsWith(' success')) {
          const changes = await probe.changes(before, after);
          if (changes.length > 0) problems.push(`${what}: refused (${answer}) but changed ${changes.join(' | ')}`);
        }
        for (const row of [...(await probe.written(before, after)), `answer ${JSON.stringify(res.body)}`]) {
          const ids = nonCanonicalIds(row);
          if (ids.length > 0) problems.push(`${what}: ${row.split(' ')[0]} names ${ids.join(', ')}: ${row.slice(0, 300)}`);
        }
      }
    }
  }
  return problems;
}

describe.each(ROLES)('%s naming an account by any spelling of its id', (role) => {
  it.each(TRANSPORTS)('over %s: every spelling answers as the lower-case id, the caller keeps role and status, a refusal changes nothing, what is written names ids in lower case', async (transport) => {
    if (transport === 'REST') expect(routes.map((r) => r.op).sort()).toEqual(expect.arrayContaining(['block', 'delete', 'events', 'phone', 'revoke', 'role', 'sessions', 'unblock', 'view']));
    expect(await matrix(role, transport)).toEqual([]);
  }, 120_000);
});
