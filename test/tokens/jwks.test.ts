import { afterAll, describe, expect, it } from '@jest/globals';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateJwkThumbprint, importJWK, jwtVerify, type JWK } from 'jose';
import jwt from 'jsonwebtoken';
import { RefreshTokenDocument } from '../generated/graphql.js';
import { send } from '../avatar/support.js';
import { clearRateLimits, signInWithCode } from '../helpers/factories.js';
import { keysIn, useKeyFileServer } from '../helpers/keys.js';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { claimsOf, forgeSigned, forgeToken, headerOf } from '../helpers/tokens.js';
import { expectAccepted, expectRefused, expectRefusedFor, unsignedToken } from './support.js';

const JWKS_PATHS = ['/.well-known/jwks.json', '/api/v1/.well-known/jwks.json'];

/** The JWKS as served at `path`, with the headers that matter to a verifier. */
async function jwks(t: TestServer, path = JWKS_PATHS[0]!) {
  const res = await t.http.get(path);
  expect(res.status).toBe(200);
  return {
    body: res.body as { keys: (JWK & { kid: string })[] },
    type: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    cors: res.headers.get('access-control-allow-origin'),
    etag: res.headers.get('etag'),
  };
}

const subjectOf = (token: string) => ({ sub: claimsOf(token).sub, sid: claimsOf(token).sid });

/** Both paths answer a matching If-None-Match with 304 and no body, another ETag with 200. */
async function expectRevalidation(t: TestServer): Promise<void> {
  for (const path of JWKS_PATHS) {
    // Over node:http: fetch adds Cache-Control: no-cache to a conditional request, which rightly forbids a 304.
    const get = (headers: Record<string, string> = {}) => send(`${t.url}${path}`, 'GET', headers);
    const etag = (await get()).headers.etag!;
    const again = await get({ 'if-none-match': etag });
    expect({ path, status: again.status, etag: again.headers.etag, body: again.raw.length }).toEqual({ path, status: 304, etag, body: 0 });
    expect((await get({ 'if-none-match': '"other"' })).status).toBe(200);
  }
}

describe('tokens and the JWKS with HS256 (the default)', () => {
  const t = useTestServer();

  it('serves an empty key set at both paths, public and cacheable', async () => {
    for (const path of JWKS_PATHS) {
      expect(await jwks(t, path)).toEqual({
        body: { keys: [] },
        type: expect.stringMatching(/^application\/json/),
        cacheControl: 'public, max-age=300',
        cors: '*',
        etag: expect.stringMatching(/^"[A-Za-z0-9_-]{27}"$/),
      });
    }
  });

  it('revalidates the empty set by ETag at both paths', async () => {
    await expectRevalidation(t);
  });

  it('puts a kid in every token header, and refuses a token naming another kid', async () => {
    const s = await signInWithCode(t);
    const { kid, alg } = headerOf(s.accessToken);
    expect({ alg, kid }).toEqual({ alg: 'HS256', kid: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) });
    await expectAccepted(t, forgeToken(subjectOf(s.accessToken), { kid }), s.userId);
    await expectRefused(t, forgeToken(subjectOf(s.accessToken), { kid: 'another-key' }));
  });

  it('still accepts a token without kid signed with the secret: tokens issued before kids were introduced', async () => {
    const s = await signInWithCode(t);
    await expectAccepted(t, forgeToken(subjectOf(s.accessToken)), s.userId);
  });
});

describe.each(['ES256', 'EdDSA'] as const)('%s signing', (alg) => {
  const { t, file } = useKeyFileServer(alg);
  const key = () => keysIn(file)[0]!;

  it('publishes the public key at both paths, with public members only', async () => {
    const { kid, jwk } = key();
    const publicMembers = alg === 'ES256' ? { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } : { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
    for (const path of JWKS_PATHS) {
      const served = await jwks(t, path);
      expect(served.body).toEqual({ keys: [{ ...publicMembers, kid, alg, use: 'sig' }] });
      expect(served).toMatchObject({ cacheControl: 'public, max-age=300', cors: '*' });
      expect(JSON.stringify(served.body)).not.toMatch(/"d"|demotedAt/);
    }
    // The kid is the RFC 7638 thumbprint of the public key.
    expect(kid).toBe(await calculateJwkThumbprint(publicMembers as JWK));
  });

  it('revalidates by ETag at both paths: a matching If-None-Match is 304 without a body', async () => {
    await expectRevalidation(t);
  });

  it('signs every token with the key: its alg and kid in the header, the contract claims; both transports accept it, and a refreshed one', async () => {
    const s = await signInWithCode(t);
    expect(headerOf(s.accessToken)).toEqual({ alg, kid: key().kid, typ: 'JWT' });
    const claims = claimsOf(s.accessToken);
    expect(Object.keys(claims).sort()).toEqual(['amr', 'aud', 'auth_time', 'exp', 'iat', 'iss', 'jti', 'sid', 'sub']);
    expect(claims).toMatchObject({ sub: s.userId, iss: 'meeting-accounts', aud: 'meeting-app', amr: ['sms'] });
    expect(claims.exp - claims.iat).toBe(900);
    await expectAccepted(t, s.accessToken, s.userId);
    const rest = await t.http.post('/api/v1/auth/refresh', { refreshToken: s.refreshToken });
    expect(headerOf(rest.body.accessToken)).toMatchObject({ alg, kid: key().kid });
    // A refresh proves no factor: the methods and the time they were proven stay the sign-in's.
    expect(claimsOf(rest.body.accessToken)).toMatchObject({ amr: ['sms'], auth_time: claims.auth_time });
    const graphql = await t.http.gql(RefreshTokenDocument, { refreshToken: rest.body.refreshToken });
    await expectAccepted(t, graphql.body.data!.refreshToken.accessToken, s.userId);
  });

  it('lets another service verify a token with the published key alone', async () => {
    const s = await signInWithCode(t);
    const [published] = (await jwks(t)).body.keys;
    const { payload } = await jwtVerify(s.accessToken, await importJWK(published!, alg), { issuer: 'meeting-accounts', audience: 'meeting-app' });
    expect(payload).toMatchObject({ sub: s.userId, sid: claimsOf(s.accessToken).sid });
  });

  it('refuses a token whose kid names no key in use, and one without kid', async () => {
    const s = await signInWithCode(t);
    const stranger = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: stranger.privateKey, alg, kid: 'not-a-key-of-ours' }));
    // The right key, but the kid of a stranger, and no kid at all.
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: key().privateKey, alg, kid: 'not-a-key-of-ours' }));
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: key().privateKey, alg }));
    // Control: the same forgery with the right kid is accepted.
    await expectAccepted(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: key().privateKey, alg, kid: key().kid }), s.userId);
  });

  it('verifies each key with its own algorithm only: HS256 keyed with the public key, alg none and the other curve are refused', async () => {
    const s = await signInWithCode(t);
    const subject = subjectOf(s.accessToken);
    const { kid, privateKey, jwk } = key();
    const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...subject, iss: 'meeting-accounts', aud: 'meeting-app', iat: now, exp: now + 900, jti: 'x' };
    for (const secret of [publicPem, JSON.stringify(jwk), String(jwk.x)]) {
      await expectRefused(t, jwt.sign(payload, secret, { algorithm: 'HS256', keyid: kid }));
    }
    await expectRefused(t, unsignedToken({ alg: 'none', typ: 'JWT', kid }, payload));
    await expectRefused(t, unsignedToken({ alg: 'none', typ: 'JWT', kid }, payload, 'c2lnbmF0dXJl'));
    const other = alg === 'ES256' ? { pair: generateKeyPairSync('ed25519'), alg: 'EdDSA' as const } : { pair: generateKeyPairSync('ec', { namedCurve: 'P-256' }), alg: 'ES256' as const };
    await expectRefused(t, await forgeSigned(subject, { privateKey: other.pair.privateKey, alg: other.alg, kid }));
  });

  it('keeps checking issuer, audience and expiry', async () => {
    const s = await signInWithCode(t);
    const signer = { privateKey: key().privateKey, alg, kid: key().kid };
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), signer, { issuer: 'someone-else' }));
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), signer, { audience: 'another-app' }));
    await expectRefused(t, await forgeSigned(subjectOf(s.accessToken), signer, { expiresIn: -5 }));
  });

  it('tells an expired token (reason expired) from one that also fails issuer or audience (reason invalid)', async () => {
    const s = await signInWithCode(t);
    const signer = { privateKey: key().privateKey, alg, kid: key().kid };
    await expectRefusedFor(t, `Bearer ${await forgeSigned(subjectOf(s.accessToken), signer, { expiresIn: -5 })}`, 'expired');
    await expectRefusedFor(t, `Bearer ${await forgeSigned(subjectOf(s.accessToken), signer, { expiresIn: -5, audience: 'another-app' })}`, 'invalid');
    await expectRefusedFor(t, `Bearer ${await forgeSigned(subjectOf(s.accessToken), signer, { expiresIn: -5, issuer: 'someone-else' })}`, 'invalid');
  });
});

describe('keys generated outside production', () => {
  it('are created once in DATA_DIR, readable by the owner only, and kept across restarts: tokens survive', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ma-generated-keys-'));
    const env = { JWT_ALGORITHM: 'EdDSA', DATA_DIR: dataDir };
    try {
      const first = await startTestServer(env);
      // Its sign-in's send-code limits start from zero, whatever an earlier file left (the embedded pass shares one database).
      await clearRateLimits(first);
      const s = await signInWithCode(first);
      const kid = headerOf(s.accessToken).kid;
      await first.stop();
      const file = join(dataDir, 'jwt-keys-eddsa.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(keysIn(file).map((k) => k.kid)).toEqual([kid]);
      const second = await startTestServer(env);
      try {
        expect((await jwks(second)).body.keys.map((k) => k.kid)).toEqual([kid]);
        await expectAccepted(second, s.accessToken, s.userId);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('PEM key files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-pem-'));
  const file = join(dir, 'keys.pem');
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const next = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = (pair: typeof signing) => pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(file, `${pem(signing)}\n${pem(next)}`);
  const t = useTestServer({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEYS_FILE: file });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sign with the first key and publish both, named by their thumbprints', async () => {
    const thumbprint = (pair: typeof signing) => calculateJwkThumbprint(pair.publicKey.export({ format: 'jwk' }) as JWK);
    expect((await jwks(t)).body.keys.map((k) => k.kid)).toEqual([await thumbprint(signing), await thumbprint(next)]);
    const s = await signInWithCode(t);
    expect(headerOf(s.accessToken).kid).toBe(await thumbprint(signing));
    await expectAccepted(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: next.privateKey, alg: 'ES256', kid: await thumbprint(next) }), s.userId);
  });
});

describe('several key files (JWT_PRIVATE_KEYS_FILE=a,b)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-two-files-'));
  const pairs = [generateKeyPairSync('ec', { namedCurve: 'P-256' }), generateKeyPairSync('ec', { namedCurve: 'P-256' })];
  const files = pairs.map((pair, i) => {
    const path = join(dir, `keys-${i}.pem`);
    writeFileSync(path, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    return path;
  });
  const t = useTestServer({ JWT_ALGORITHM: 'ES256', JWT_PRIVATE_KEYS_FILE: files.join(',') });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sign with the first key of the first file, publish and accept the keys of both', async () => {
    const kids = await Promise.all(pairs.map((pair) => calculateJwkThumbprint(pair.publicKey.export({ format: 'jwk' }) as JWK)));
    expect((await jwks(t)).body.keys.map((k) => k.kid)).toEqual(kids);
    const s = await signInWithCode(t);
    expect(headerOf(s.accessToken).kid).toBe(kids[0]);
    await expectAccepted(t, await forgeSigned(subjectOf(s.accessToken), { privateKey: pairs[1]!.privateKey, alg: 'ES256', kid: kids[1] }), s.userId);
  });
});

describe('key files that cannot be used', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ma-bad-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: string) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it.each([
    ['a missing file', 'ES256', () => join(dir, 'missing.json'), /missing\.json: cannot be read \(ENOENT\)/],
    ['neither JSON nor PEM', 'ES256', () => file('garbage.txt', 'not a key'), /garbage\.txt: is neither a JWK set nor PEM private keys/],
    ['an RSA key', 'ES256', () => file('rsa.pem', rsa), /rsa\.pem: holds a rsa key; only EC P-256 \(ES256\) and Ed25519 \(EdDSA\) keys sign tokens/],
    ['a JWK set without keys', 'ES256', () => file('empty.json', '{"keys":[]}'), /empty\.json: holds no key/],
    ['an EdDSA key while JWT_ALGORITHM is ES256', 'ES256', () => file('ed.pem', generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()), /ed\.pem: its first key, which signs, is EdDSA, but JWT_ALGORITHM is ES256/],
    ['an ES256 key while JWT_ALGORITHM is EdDSA', 'EdDSA', () => file('ec.pem', ec), /ec\.pem: its first key, which signs, is ES256, but JWT_ALGORITHM is EdDSA/],
    ['one key in two files', 'ES256', () => `${file('one.pem', ec)},${file('same.pem', ec)}`, /appears in more than one of .+one\.pem, .+same\.pem/],
  ])('stop the start with a message naming the file: %s', async (_what, alg, path, message) => {
    await expect(startTestServer({ JWT_ALGORITHM: alg, JWT_PRIVATE_KEYS_FILE: path() })).rejects.toThrow(message);
  });
});
