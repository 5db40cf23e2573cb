import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { signInWithCode } from '../helpers/factories.js';
import { keysIn, useKeyFileServer } from '../helpers/keys.js';
import { claimsOf, forgeSigned } from '../helpers/tokens.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The resource server of docs/production.md ("Tokens for other services"), exactly as printed there. */
function readmeExample(): string {
  const readme = readFileSync(join(root, 'docs/production.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Tokens for other services (JWKS)'));
  const block = /```js\n([\s\S]+?)```/.exec(section);
  if (!block) throw new Error('docs/production.md has no js block under "Tokens for other services (JWKS)"');
  return block[1]!;
}

describe.each(['ES256', 'EdDSA'] as const)('the resource server of docs/production.md, against a service signing with %s', (alg) => {
  const { t, file } = useKeyFileServer(alg);

  /** Runs the guide's module in a Node process of its own, pointed at this service; what verifyAccessToken says of each token. */
  async function verifyElsewhere(tokens: string[]): Promise<string[]> {
    const example = readmeExample();
    expect(example).toContain("new URL('http://127.0.0.1:4000/.well-known/jwks.json')");
    const app = mkdtempSync(join(tmpdir(), 'ma-verifier-'));
    try {
      symlinkSync(join(root, 'node_modules'), join(app, 'node_modules'));
      writeFileSync(join(app, 'verify.mjs'), example.replace('http://127.0.0.1:4000', t.url));
      writeFileSync(
        join(app, 'main.mjs'),
        `import { verifyAccessToken } from './verify.mjs';
         for (const token of JSON.parse(process.argv[2])) {
           console.log(await verifyAccessToken(token).then((c) => JSON.stringify(c), (e) => 'refused: ' + e.code));
         }`,
      );
      const child = spawn(process.execPath, [join(app, 'main.mjs'), JSON.stringify(tokens)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code).toBe(0);
      return out.trim().split('\n');
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }

  it('verifies a token of this service, and refuses tampered, expired and other-audience ones', async () => {
    const s = await signInWithCode(t);
    const { sub, sid } = claimsOf(s.accessToken);
    const [header, , signature] = s.accessToken.split('.');
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claimsOf(s.accessToken), sub: '00000000-0000-4000-8000-000000000000' })).toString('base64url')}.${signature}`;
    const key = keysIn(file)[0]!;
    const expired = await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg, kid: key.kid }, { expiresIn: -60 });
    const otherAudience = await forgeSigned({ sub, sid }, { privateKey: key.privateKey, alg, kid: key.kid }, { audience: 'another-app' });
    expect(await verifyElsewhere([s.accessToken, tampered, expired, otherAudience])).toEqual([
      JSON.stringify({ userId: s.userId, sessionId: sid }),
      'refused: ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      'refused: ERR_JWT_EXPIRED',
      'refused: ERR_JWT_CLAIM_VALIDATION_FAILED',
    ]);
  });

  it('still accepts a revoked session until its token expires, as docs/production.md says, while this service refuses it at once', async () => {
    const s = await signInWithCode(t);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: s.accessToken })).status).toBe(204);
    expect((await t.http.get('/api/v1/users/me', { token: s.accessToken })).status).toBe(401);
    expect(await verifyElsewhere([s.accessToken])).toEqual([JSON.stringify({ userId: s.userId, sessionId: claimsOf(s.accessToken).sid })]);
  });
});
