// API.md 10.0: in production, `{ _service { sdl } }` (the whole schema, operators' fields and
// descriptions included) answers only a caller presenting the internal key (X-Internal-Key:
// INTERNAL_API_KEY); anyone else, signed in or not, gets exactly the refusal introspection gets. The
// same on the lean path of POST /graphql, through Express (GET, or a POST with a query string), and
// with trusted documents. Outside production it stays open. Gateways compose from the committed
// schema/subgraph.graphql (test/federation/gateway.test.ts) or present the key.
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withRole } from '../admin/support.js';
import { dataOf } from '../graphql/support.js';
import type { GraphQLResponse, HttpResult } from '../helpers/http.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { INTERNAL_KEY } from '../stats/support.js';

const COMMITTED = readFileSync(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
const SDL = '{ _service { sdl } }';
const INTROSPECTION = '{ __schema { queryType { name } } }';
type Res = HttpResult<GraphQLResponse<any>>;

/** A manifest of trusted documents holding the SDL and introspection queries. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const MANIFEST = join(mkdtempSync(join(tmpdir(), 'trusted-sdl-')), 'persisted-documents.json');
writeFileSync(MANIFEST, JSON.stringify({ [sha256(SDL)]: SDL, [sha256(INTROSPECTION)]: INTROSPECTION }));

/** The ways a document reaches Apollo: the lean path (plain POST), Express (POST with a query string, GET), trusted documents by id. */
const routes = {
  lean: (t: TestServer, query: string, headers: Record<string, string>) => t.http.post('/graphql', { query }, { headers }),
  express: (t: TestServer, query: string, headers: Record<string, string>) => t.http.request('POST', '/graphql?via=express', { body: { query }, headers }),
  get: (t: TestServer, query: string, headers: Record<string, string>) =>
    t.http.get(`/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, 'apollo-require-preflight': 'true' } }),
};
const trusted = (t: TestServer, query: string, headers: Record<string, string>) => t.http.post('/graphql', { documentId: `sha256:${sha256(query)}` }, { headers });

/** What a refusal says, without what differs per request (its id, its position in the document). */
const refusalOf = (res: Res) => ({ status: res.status, data: res.body.data ?? null, errors: res.body.errors?.map((e) => ({ message: e.message, code: e.extensions?.code })) });

async function expectRefusedAsIntrospection(t: TestServer, send: typeof trusted, headers: Record<string, string>): Promise<void> {
  const introspection = refusalOf(await send(t, INTROSPECTION, headers));
  expect(introspection).toEqual({ status: 400, data: null, errors: [{ message: expect.stringMatching(/introspection is not allowed/), code: 'VALIDATION_FAILED' }] });
  const res = await send(t, SDL, headers);
  expect(refusalOf(res)).toEqual(introspection);
  expect(JSON.stringify(res.body)).not.toMatch(/type Query|AdminUser/);
}

const expectSdl = (res: Res) => expect(dataOf(res)._service.sdl.trim()).toBe(COMMITTED.trim());

describe('in production', () => {
  const prod = useTestServer({ NODE_ENV: 'production', INTERNAL_API_KEY: INTERNAL_KEY });

  it('refuses the SDL as introspection to anyone without the key: anonymous, a user, an ADMIN, a wrong or empty key', async () => {
    const [user, admin] = [await withRole(prod, 'USER'), await withRole(prod, 'ADMIN')];
    const callers: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${user.accessToken}` },
      { authorization: `Bearer ${admin.accessToken}` },
      { authorization: `Bearer ${admin.accessToken}`, 'x-internal-key': `${INTERNAL_KEY}x` },
      { 'x-internal-key': INTERNAL_KEY.slice(0, -1) },
      { 'x-internal-key': '' },
    ];
    for (const headers of callers) {
      for (const send of Object.values(routes)) await expectRefusedAsIntrospection(prod, send, headers);
    }
  });

  it('refuses it aliased, in a fragment, and with any selection', async () => {
    for (const query of ['{ s: _service { sdl } }', 'query { ...F } fragment F on Query { _service { sdl } }', '{ ... on Query { _service { __typename } } }', '{ config { registrationEnabled } _service { sdl } }']) {
      const res = await prod.http.post('/graphql', { query });
      expect(refusalOf(res)).toEqual({ status: 400, data: null, errors: [{ message: expect.stringMatching(/introspection is not allowed/), code: 'VALIDATION_FAILED' }] });
    }
  });

  it('answers the committed SDL to a caller presenting the internal key, on every path', async () => {
    for (const send of Object.values(routes)) expectSdl(await send(prod, SDL, { 'x-internal-key': INTERNAL_KEY }));
  });

  describe('without INTERNAL_API_KEY', () => {
    const keyless = useTestServer({ NODE_ENV: 'production' });

    it('refuses it to everyone, whatever key is presented', async () => {
      for (const headers of [{}, { 'x-internal-key': INTERNAL_KEY }] as Record<string, string>[]) await expectRefusedAsIntrospection(keyless, routes.lean, headers);
    });
  });

  describe('with trusted documents', () => {
    const locked = useTestServer({ NODE_ENV: 'production', INTERNAL_API_KEY: INTERNAL_KEY, GRAPHQL_TRUSTED_DOCUMENTS: MANIFEST });

    it("refuses the manifest's SDL document as introspection without the key, and answers it with the key", async () => {
      await expectRefusedAsIntrospection(locked, trusted, {});
      await expectRefusedAsIntrospection(locked, trusted, { 'x-internal-key': 'not-the-key' });
      expectSdl(await trusted(locked, SDL, { 'x-internal-key': INTERNAL_KEY }));
    });
  });
});

describe('outside production', () => {
  const dev = useTestServer({ NODE_ENV: 'development' });

  it('answers the SDL to anyone, on every path', async () => {
    for (const send of Object.values(routes)) expectSdl(await send(dev, SDL, {}));
  });
});
