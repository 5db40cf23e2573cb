// The operators' view of the webhook deliveries (API.md 8.1, 8.2) on both transports: an ADMIN lists
// them newest first, by status, a page at a time, the URL's credentials redacted, and sends one once
// more (audited as WEBHOOK_RETRIED in the same transaction); SUPPORT and USER are FORBIDDEN and change
// nothing; every bad input is refused with the catalogue's code.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { refusal, TRANSPORTS, UNKNOWN_ID, withRole, type Transport } from '../admin/support.js';
import { dataOf } from '../graphql/support.js';
import type { Session } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import { useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { startReceiver, webhookEnv, type Receiver } from './support.js';

let receiver: Receiver;
let credentialed: string;
beforeAll(async () => {
  receiver = await startReceiver();
  credentialed = receiver.url.replace('http://', 'http://hook-user:hook-pass@');
});
afterAll(() => receiver.close());
const t = useTestServer(() => webhookEnv([credentialed]));

const FIELDS = 'id eventType url status attempts lastStatus lastError nextAttemptAt createdAt deliveredAt';
const KEYS = ['attempts', 'createdAt', 'deliveredAt', 'eventType', 'id', 'lastError', 'lastStatus', 'nextAttemptAt', 'status', 'url'];
const LIST_GQL = `query($status: WebhookDeliveryStatus, $first: Int, $after: String) {
  adminWebhookDeliveries(status: $status, first: $first, after: $after) { edges { cursor node { ${FIELDS} } } pageInfo { hasNextPage endCursor } } }`;
const RETRY_GQL = `mutation($id: ID!) { adminRetryWebhookDelivery(id: $id) { ${FIELDS} } }`;

interface Params {
  status?: unknown;
  cursor?: unknown;
  limit?: unknown;
}

function list(transport: Transport, token: string | undefined, params: Params = {}): Promise<HttpResult> {
  if (transport === 'GraphQL') {
    return t.http.post('/graphql', { query: LIST_GQL, variables: { status: params.status, first: params.limit, after: params.cursor } }, { token });
  }
  const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return t.http.get(`/api/v1/admin/webhook-deliveries${query ? `?${query}` : ''}`, { token });
}

function retry(transport: Transport, token: string | undefined, id: string): Promise<HttpResult> {
  if (transport === 'GraphQL') return t.http.post('/graphql', { query: RETRY_GQL, variables: { id } }, { token });
  return t.http.post(`/api/v1/admin/webhook-deliveries/${encodeURIComponent(id)}/retry`, undefined, { token });
}

/** The page a successful list answered, in the REST shape. */
function page(transport: Transport, res: HttpResult): { items: any[]; nextCursor: string | null } {
  if (transport === 'REST') {
    expect(res.status).toBe(200);
    return res.body;
  }
  const connection = dataOf<any>(res).adminWebhookDeliveries;
  return { items: connection.edges.map((e: any) => e.node), nextCursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
}

const fields = (res: HttpResult, transport: Transport) => Object.keys(refusal(res, transport, 'VALIDATION_FAILED') ?? {}).sort();
const b64 = (text: string) => Buffer.from(text).toString('base64url');
const rowsOf = () => t.sql<{ id: string; status: string; attempts: number }>('select id, status, attempts from webhook_deliveries order by seq');
/** The WEBHOOK_RETRIED entries (the audit log is append-only: the caller's, as each test has its own operators). */
const audit = (actors: Session[]) =>
  t.sql<{ actor_id: string; action: string; target_user_id: string | null; detail: any }>(
    "select actor_id, action, target_user_id, detail from audit_log where action = 'WEBHOOK_RETRIED' and actor_id = any($1::uuid[]) order by id",
    [actors.map((a) => a.userId)],
  );

describe.each(TRANSPORTS)('webhook deliveries for operators over %s', (transport) => {
  let admin: Session;
  let support: Session;
  let user: Session;
  /** Three DEAD deliveries (about `dead`), then the rest delivered. */
  let dead: string;

  beforeEach(async () => {
    receiver.received.length = 0;
    dead = randomUUID();
    receiver.answer = (r) => (r.event?.data.userId === dead ? 500 : 204);
    for (let i = 0; i < 3; i++) {
      await t.server.db.transaction(() => t.server.services.webhooks.enqueue({ type: 'user.deleted', data: { userId: dead } }));
    }
    admin = await withRole(t, 'ADMIN');
    support = await withRole(t, 'SUPPORT');
    user = await withRole(t, 'USER');
    // 3 DEAD, and user.created + session.created for each of the three accounts.
    expect(await waitFor(async () => (await rowsOf()).filter((r) => r.status !== 'PENDING').length === 9, 10_000, 20)).toBe(true);
  });

  it('lists every delivery newest first, by status, a page at a time, with the URL redacted', async () => {
    const all = page(transport, await list(transport, admin.accessToken, { limit: 100 })).items;
    const bySeq = await rowsOf();
    expect(all.map((d) => d.id)).toEqual(bySeq.map((r) => r.id).reverse());
    for (const d of all) {
      expect(Object.keys(d).sort()).toEqual(KEYS);
      expect(d.url).toBe(receiver.url.replace('http://', 'http://***:***@'));
      expect(JSON.stringify(d)).not.toMatch(/hook-pass|hook-user/);
    }
    const deadOnes = page(transport, await list(transport, admin.accessToken, { status: 'DEAD' })).items;
    expect(deadOnes.map((d) => [d.eventType, d.status, d.attempts, d.lastStatus, d.lastError, d.deliveredAt])).toEqual(Array(3).fill(['user.deleted', 'DEAD', 3, 500, 'HTTP 500', null]));
    const delivered = page(transport, await list(transport, admin.accessToken, { status: 'DELIVERED' })).items;
    expect(delivered).toHaveLength(6);
    expect(delivered.every((d) => d.status === 'DELIVERED' && d.lastStatus === 204 && d.deliveredAt !== null && d.attempts === 1)).toBe(true);
    expect(page(transport, await list(transport, admin.accessToken, { status: 'PENDING' })).items).toEqual([]);
    // The receiver got the credentials as Basic authentication.
    expect(receiver.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`);

    // Pages of 4: 4 + 4 + 1, no duplicates, no gaps; the filter holds across pages.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p = page(transport, await list(transport, admin.accessToken, { limit: 4, ...(cursor ? { cursor } : {}) }));
      seen.push(...p.items.map((d) => d.id));
      cursor = p.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.map((d) => d.id));
    const first = page(transport, await list(transport, admin.accessToken, { status: 'DEAD', limit: 2 }));
    const second = page(transport, await list(transport, admin.accessToken, { status: 'DEAD', limit: 2, cursor: first.nextCursor }));
    expect([...first.items, ...second.items].map((d) => d.id)).toEqual(deadOnes.map((d) => d.id));
    expect(second.nextCursor).toBeNull();
  });

  it('retries a DEAD delivery: PENDING and due now, sent again with the same webhook-id, audited as WEBHOOK_RETRIED', async () => {
    const [target] = page(transport, await list(transport, admin.accessToken, { status: 'DEAD', limit: 1 })).items;
    receiver.answer = () => 204;
    const before = Date.now();
    const res = await retry(transport, admin.accessToken, target.id.toUpperCase());
    const retried = transport === 'REST' ? res.body : dataOf<any>(res).adminRetryWebhookDelivery;
    if (transport === 'REST') expect(res.status).toBe(200);
    expect(Object.keys(retried).sort()).toEqual(KEYS);
    expect(retried).toMatchObject({ id: target.id, status: 'PENDING', attempts: 3, eventType: 'user.deleted' });
    expect(Math.abs(Date.parse(retried.nextAttemptAt) - before)).toBeLessThan(5000);
    expect(await audit([admin])).toEqual([
      { actor_id: admin.userId, action: 'WEBHOOK_RETRIED', target_user_id: null, detail: expect.objectContaining({ deliveryId: target.id, eventType: 'user.deleted', url: target.url }) },
    ]);
    expect(await waitFor(async () => (await rowsOf()).find((r) => r.id === target.id)?.status === 'DELIVERED', 5000, 20)).toBe(true);
    expect(receiver.delivered().filter((r) => r.id === target.id)).toHaveLength(1);
    expect((await rowsOf()).find((r) => r.id === target.id)!.attempts).toBe(4);
  });

  it('is for ADMINs only: SUPPORT and USER are FORBIDDEN and change nothing; without a valid token, or as a blocked ADMIN, UNAUTHENTICATED', async () => {
    const [target] = (await rowsOf()).filter((r) => r.status === 'DEAD');
    for (const caller of [support, user]) {
      refusal(await list(transport, caller.accessToken), transport, 'FORBIDDEN');
      // The role is checked before the input (GraphQL's own validation of enums and types comes first there).
      const bad = transport === 'REST' ? { status: 'NOPE', limit: 0, cursor: 'nonsense' } : { limit: 0, cursor: 'nonsense' };
      refusal(await list(transport, caller.accessToken, bad), transport, 'FORBIDDEN');
      refusal(await retry(transport, caller.accessToken, target!.id), transport, 'FORBIDDEN');
      refusal(await retry(transport, caller.accessToken, 'not-an-id'), transport, 'FORBIDDEN');
    }
    for (const token of [undefined, 'not.a.token']) {
      refusal(await list(transport, token), transport, 'UNAUTHENTICATED');
      refusal(await retry(transport, token, target!.id), transport, 'UNAUTHENTICATED');
    }
    // A blocked ADMIN: the block ended its sessions, so its token no longer signs anything in.
    await t.sql(`update users set blocked_at = now(), blocked_reason = 'x' where id = $1`, [admin.userId]);
    refusal(await list(transport, admin.accessToken), transport, 'UNAUTHENTICATED');
    refusal(await retry(transport, admin.accessToken, target!.id), transport, 'UNAUTHENTICATED');
    expect((await rowsOf()).find((r) => r.id === target!.id)!.status).toBe('DEAD');
    expect(await audit([support, user, admin])).toEqual([]);
  });

  it('refuses bad input: a malformed id, an unknown one, a bad status, cursor or limit', async () => {
    refusal(await retry(transport, admin.accessToken, UNKNOWN_ID), transport, 'NOT_FOUND');
    for (const bad of ['not-an-id', '123', `${UNKNOWN_ID}x`]) {
      expect(fields(await retry(transport, admin.accessToken, bad), transport)).toEqual(['id']);
    }
    const cursorField = transport === 'REST' ? 'cursor' : 'after';
    const limitField = transport === 'REST' ? 'limit' : 'first';
    const cases: [Params, string][] = [
      [{ cursor: 'nonsense' }, cursorField],
      [{ cursor: 'x'.repeat(201) }, cursorField],
      [{ cursor: b64('audit:5') }, cursorField], // another list's cursor
      [{ cursor: b64('webhook:0') }, cursorField],
      [{ cursor: b64('webhook:99999999999999999999') }, cursorField], // past bigint
      [{ limit: 0 }, limitField],
      [{ limit: 101 }, limitField],
      [{ limit: -1 }, limitField],
    ];
    if (transport === 'REST') cases.push([{ status: 'LOST' }, 'status'], [{ status: 'dead' }, 'status'], [{ limit: 'abc' }, 'limit'], [{ limit: 1.5 }, 'limit']);
    for (const [params, field] of cases) {
      expect({ params, fields: fields(await list(transport, admin.accessToken, params), transport) }).toEqual({ params, fields: [field] });
    }
    if (transport === 'GraphQL') {
      // The enum and Int are the schema's: a value outside them fails GraphQL validation (HTTP 400).
      for (const params of [{ status: 'LOST' }, { status: 'dead' }, { limit: 1.5 }] as Params[]) {
        const res = await list(transport, admin.accessToken, params);
        refusal(res, transport, 'VALIDATION_FAILED');
        expect({ params, status: res.status }).toEqual({ params, status: 400 });
      }
    } else {
      // Empty parameters read as absent.
      const empty = await t.http.get('/api/v1/admin/webhook-deliveries?status=&cursor=&limit=', { token: admin.accessToken });
      expect(page(transport, empty).items).toHaveLength(9);
    }
    expect(await audit([admin])).toEqual([]);
  });
});
