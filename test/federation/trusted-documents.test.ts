// API.md 9.2: with GRAPHQL_TRUSTED_DOCUMENTS (the manifest GraphQL Code Generator's client preset
// writes: test/generated/client/persisted-documents.json, from the operations the tests use), only
// the manifest's documents run, named by extensions.persistedQuery.sha256Hash or documentId, by POST
// or GET; anything else is PERSISTED_QUERY_NOT_FOUND (400), and no client can register a document of
// its own. Without it, any document runs, automatic persisted queries included.
import { createHash } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { print } from 'graphql';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { TrustedDocuments } from '../../src/graphql/trusted-documents.js';
import { ConfigDocument, MeDocument } from '../generated/client/graphql.js';
import { errorOf } from '../graphql/support.js';
import { registerUser } from '../helpers/factories.js';
import { useTestServer } from '../helpers/server.js';

const MANIFEST = new URL('../generated/client/persisted-documents.json', import.meta.url).pathname;
/** The hash the client preset gives a document (its `__meta__`, beside the DocumentNode). */
const hashOf = (document: object) => (document as { __meta__: { hash: string } }).__meta__.hash;
const hex = (id: string) => id.replace(/^sha256:/, '');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** A second client's manifest: one document the first lacks. */
const EXTRA_DOCUMENT = 'query ExtraClientMe { me { id role } }';
const EXTRA = join(mkdtempSync(join(tmpdir(), 'trusted-extra-')), 'persisted-documents.json');
writeFileSync(EXTRA, JSON.stringify({ [`sha256:${sha256(EXTRA_DOCUMENT)}`]: EXTRA_DOCUMENT }));

describe('with a manifest of trusted documents', () => {
  const t = useTestServer({ GRAPHQL_TRUSTED_DOCUMENTS: MANIFEST });

  it("runs the manifest's documents by documentId and by persistedQuery.sha256Hash, over POST and GET", async () => {
    const user = await registerUser(t);
    const byId = await t.http.post('/graphql', { documentId: hashOf(MeDocument) }, { token: user.accessToken });
    expect(byId.body.data.me.id).toBe(user.userId);
    const byHash = await t.http.post('/graphql', { extensions: { persistedQuery: { version: 1, sha256Hash: hex(hashOf(MeDocument)) } } }, { token: user.accessToken });
    expect(byHash.body.data.me.id).toBe(user.userId);
    const get = await t.http.get(`/graphql?documentId=${encodeURIComponent(hashOf(ConfigDocument))}`, { headers: { 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(200);
    expect(get.body.data.config.registrationEnabled).toBe(true);
    const getByHash = await t.http.get(`/graphql?extensions=${encodeURIComponent(JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hex(hashOf(ConfigDocument)) } }))}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(getByHash.body.data.config.registrationEnabled).toBe(true);
  });

  it('refuses a document given as text, an unknown hash, a text that is not the named document, and the registration of a new one', async () => {
    const user = await registerUser(t);
    const invented = '{ me { id phone } }';
    const refused = [
      { query: invented },
      { query: print(MeDocument) },
      { documentId: `sha256:${sha256(invented)}` },
      { documentId: 'not-a-hash' },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(invented) } } },
      // An automatic persisted query's registration: the hash of the text, and the text.
      { query: invented, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(invented) } } },
      { query: invented, documentId: hashOf(MeDocument) },
      {},
    ];
    for (const body of refused) {
      const res = await t.http.post('/graphql', body, { token: user.accessToken });
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      errorOf(res, 'PERSISTED_QUERY_NOT_FOUND');
    }
    const get = await t.http.get(`/graphql?query=${encodeURIComponent(invented)}`, { token: user.accessToken, headers: { 'apollo-require-preflight': 'true' } });
    expect(get.status).toBe(400);
    errorOf(get, 'PERSISTED_QUERY_NOT_FOUND');
  });
});

describe('without a manifest', () => {
  const t = useTestServer();

  it('runs any document, and automatic persisted queries: an unknown hash is PERSISTED_QUERY_NOT_FOUND, then the text registers it', async () => {
    const user = await registerUser(t);
    const document = `{ me { id nickname } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(document) } };
    const miss = await t.http.post('/graphql', { extensions }, { token: user.accessToken });
    expect(miss.body.errors.map((e: any) => [e.message, e.extensions.code])).toEqual([['PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND']]);
    expect((await t.http.post('/graphql', { query: document, extensions }, { token: user.accessToken })).body.data.me.id).toBe(user.userId);
    expect((await t.http.post('/graphql', { extensions }, { token: user.accessToken })).body.data.me.id).toBe(user.userId);
  });
});

describe('the manifest', () => {
  it('stops the start with a clear message when a key is not the hash of its document, or the file is not one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trusted-'));
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, JSON.stringify({ [`sha256:${sha256('{ me { id } }')}`]: '{ me { id phone } }' }));
    expect(() => TrustedDocuments.load(forged)).toThrow(ConfigError);
    expect(() => TrustedDocuments.load(forged)).toThrow(/does not hash to it/);
    expect(() => TrustedDocuments.load(join(dir, 'missing.json'))).toThrow(/cannot read/);
    const list = join(dir, 'list.json');
    writeFileSync(list, '["{ me { id } }"]');
    expect(() => TrustedDocuments.load(list)).toThrow(/must be a JSON object/);
    expect(TrustedDocuments.load(MANIFEST).size).toBeGreaterThan(10);
    expect(loadConfig({ NODE_ENV: 'test', GRAPHQL_TRUSTED_DOCUMENTS: MANIFEST }).graphqlTrustedDocuments).toEqual([MANIFEST]);
    expect(loadConfig({ NODE_ENV: 'test' }).graphqlTrustedDocuments).toEqual([]);
  });

  it('merges several manifests, and names every one that cannot be read', () => {
    expect(TrustedDocuments.load(MANIFEST, EXTRA).size).toBe(TrustedDocuments.load(MANIFEST).size + 1);
    const missing = join(EXTRA, '..', 'missing.json');
    expect(() => TrustedDocuments.load(MANIFEST, missing, `${missing}.2`)).toThrow(/missing\.json as JSON[\s\S]*missing\.json\.2 as JSON/);
    expect(loadConfig({ NODE_ENV: 'test', GRAPHQL_TRUSTED_DOCUMENTS: ` ${MANIFEST}, ${EXTRA} ` }).graphqlTrustedDocuments).toEqual([MANIFEST, EXTRA]);
  });
});

describe('with two manifests (GRAPHQL_TRUSTED_DOCUMENTS=<a>,<b>)', () => {
  const t = useTestServer({ GRAPHQL_TRUSTED_DOCUMENTS: `${MANIFEST},${EXTRA}` });

  it('runs the documents of both, and still nothing else', async () => {
    const user = await registerUser(t);
    const first = await t.http.post('/graphql', { documentId: hashOf(MeDocument) }, { token: user.accessToken });
    expect(first.body.data.me.id).toBe(user.userId);
    const second = await t.http.post('/graphql', { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(EXTRA_DOCUMENT) } } }, { token: user.accessToken });
    expect(second.body.data.me).toEqual({ id: user.userId, role: 'USER' });
    const other = await t.http.post('/graphql', { query: '{ me { id } }' }, { token: user.accessToken });
    expect(other.status).toBe(400);
    errorOf(other, 'PERSISTED_QUERY_NOT_FOUND');
  });
});
