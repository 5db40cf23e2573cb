import { describe, expect, it } from '@jest/globals';
import { readFileSync, writeFileSync } from 'node:fs';
import { signInWithCode } from '../helpers/factories.js';
import { keysCommand, keysIn, keysOk, useKeyFileServer } from '../helpers/keys.js';
import type { TestServer } from '../helpers/server.js';
import { claimsOf, forgeSigned, headerOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';
import { answersTo, expectAccepted, expectRefused } from './support.js';

const TTL_SECONDS = 900;
/** The service re-reads a changed key file within 2 s. */
const RELOAD_MS = 5_000;

const publishedKids = async (t: TestServer) => ((await t.http.get('/.well-known/jwks.json')).body.keys as { kid: string }[]).map((k) => k.kid);
const subjectOf = (token: string) => ({ sub: claimsOf(token).sub, sid: claimsOf(token).sid });

/** Waits until the running service publishes exactly `kids`, in this order. */
async function expectPublished(t: TestServer, kids: string[]): Promise<void> {
  await waitFor(async () => JSON.stringify(await publishedKids(t)) === JSON.stringify(kids), RELOAD_MS);
  expect(await publishedKids(t)).toEqual(kids);
}

describe('rotating the signing key with npm run keys, on a running service', () => {
  const { t, env, file } = useKeyFileServer('ES256', { ACCESS_TOKEN_TTL_SECONDS: String(TTL_SECONDS) }, { captureLogs: true });

  it('add publishes, promote switches signing, retire drops the old key once its tokens have expired: nobody is signed out', async () => {
    const [old] = keysIn(file);
    const before = await signInWithCode(t);
    expect(headerOf(before.accessToken).kid).toBe(old!.kid);

    // 1. A new key is published first: it verifies, it does not sign.
    expect(await keysOk(['add'], env)).toMatch(/added .+ it is published and verifies, and does not sign yet/);
    const added = keysIn(file)[1]!;
    await expectPublished(t, [old!.kid, added.kid]);
    expect(headerOf((await signInWithCode(t)).accessToken).kid).toBe(old!.kid);

    // 2. Promoted, it signs; the old key keeps verifying the tokens it signed.
    expect(await keysOk(['promote'], env)).toMatch(new RegExp(`${added.kid} signs from now on`));
    await expectPublished(t, [added.kid, old!.kid]);
    const after = await signInWithCode(t);
    expect(headerOf(after.accessToken).kid).toBe(added.kid);
    await expectAccepted(t, after.accessToken, after.userId);
    await expectAccepted(t, before.accessToken, before.userId);

    // A token of the old key stays valid until it expires, and not after.
    const expiresAt = Date.now() + 2_000;
    const shortLived = await forgeSigned(subjectOf(before.accessToken), { privateKey: old!.privateKey, alg: 'ES256', kid: old!.kid }, { expiresIn: 2 });
    await expectAccepted(t, shortLived, before.userId);
    await waitFor(async () => (await answersTo(t, shortLived)).rest.startsWith('401'), 6_000, 250);
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt - 1_000);
    await expectRefused(t, shortLived);

    // 3. Retiring the old key is refused while its tokens may live.
    const early = await keysCommand(['retire', old!.kid], env);
    expect({ code: early.code, stderr: early.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(new RegExp(`${old!.kid} verifies live tokens until .+: retire it then, or with --force now`)) });
    expect(keysIn(file).map((k) => k.kid)).toEqual([added.kid, old!.kid]);

    // An access-token lifetime (and the minute of clock leeway) later, as the key file records it:
    // the old key is neither published nor accepted, and retire removes it.
    const set = JSON.parse(readFileSync(file, 'utf8')) as { keys: { kid: string; demotedAt?: string }[] };
    set.keys[1]!.demotedAt = new Date(Date.now() - (TTL_SECONDS + 61) * 1000).toISOString();
    writeFileSync(file, JSON.stringify(set));
    await expectPublished(t, [added.kid]);
    await expectRefused(t, before.accessToken);
    await expectAccepted(t, after.accessToken, after.userId);
    expect(await keysOk(['retire'], env)).toMatch(new RegExp(`retired ${old!.kid}`));
    expect(keysIn(file).map((k) => k.kid)).toEqual([added.kid]);
    await expectPublished(t, [added.kid]);
  }, 60_000);

  it('refuses what would sign anyone out or cannot work: retiring the signing key, promoting nothing, unknown commands', async () => {
    const signing = keysIn(file)[0]!.kid;
    expect(await keysCommand(['retire', signing], env)).toMatchObject({ code: 1, stderr: expect.stringContaining(`${signing} signs; promote another key first`) });
    expect(await keysCommand(['promote'], env)).toMatchObject({ code: 1, stderr: expect.stringContaining('has no published key waiting to sign') });
    expect(await keysCommand(['rotate'], env)).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run keys') });
    expect(await keysCommand(['list'], { JWT_ALGORITHM: 'HS256' })).toMatchObject({ code: 1, stderr: expect.stringContaining('JWT_ALGORITHM is HS256, which has no key file') });
    expect(await keysOk(['list'], env)).toBe(`${file}:\n  ${signing}  ES256  signs\n`);
  });
});

describe('a key file changed on a running service into one that cannot be used', () => {
  // A server and key file of its own, declared to provoke a fault of the service (its key file
  // broken under it): its error-level log line is expected.
  const { t, file } = useKeyFileServer('ES256', {}, { captureLogs: true, expectFaults: true });

  it('keeps the keys in use when the changed file cannot be used, and logs why', async () => {
    const kids = await publishedKids(t);
    const s = await signInWithCode(t);
    const good = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, '{"keys": "not a list"}');
      expect(await waitFor(() => t.logs().includes('the changed key file cannot be used'), RELOAD_MS)).toBe(true);
      expect(t.logs()).toContain('is not a JWK set: it has no \\"keys\\" array');
      expect(await publishedKids(t)).toEqual(kids);
      await expectAccepted(t, s.accessToken, s.userId);
    } finally {
      writeFileSync(file, good);
    }
  }, 30_000);
});
