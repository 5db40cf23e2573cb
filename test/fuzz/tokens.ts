// Bearer tokens that are not the service's own: garbage, and JWTs signed with the service's real
// test key but with odd headers and claims (what a token library lets through reaches the service).
import { createHmac } from 'node:crypto';
import { TEST_JWT_SECRET } from '../helpers/server.js';
import type { Rng } from './random.js';
import type { Known } from './values.js';

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A JWS compact token of `header` and `payload` (either may be a raw string), HMAC-signed as `header.alg` says. */
function sign(header: unknown, payload: unknown, alg = 'sha256'): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(alg, TEST_JWT_SECRET).update(input).digest('base64url')}`;
}

/** A token signed with the real key, with one thing about its header or claims made odd. */
export function forgedToken(rng: Rng, known: Known): string {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: known.forged.userId, sid: known.forged.sid, iss: 'meeting-accounts', aud: 'meeting-app', jti: rng.uuid(), iat: now, exp: now + 900 };
  const header = { alg: 'HS256', typ: 'JWT' };
  const odd = rng.pick<[string, unknown]>([
    ['exp', now - 10],
    ['exp', '9999999999'],
    ['exp', 1e20],
    ['exp', 8.64e15 + 1],
    ['exp', -1],
    ['exp', null],
    ['iat', now + 86_400],
    ['nbf', now + 86_400],
    ['sub', rng.uuid()],
    ['sub', 'x'],
    ['sub', 12345],
    ['sub', { $ne: null }],
    ['sub', "' OR '1'='1"],
    ['sub', 'a'.repeat(2000)],
    ['sub', '00000000-0000-0000-0000-000000000000'],
    ['sid', undefined],
    ['sid', 'x'],
    ['sid', null],
    ['sid', rng.uuid()],
    ['sid', ['a']],
    ['iss', 'someone-else'],
    ['aud', ['meeting-app', 'other']],
    ['aud', 42],
    ['jti', { a: 1 }],
  ]);
  const payload: Record<string, unknown> = { ...claims, [odd[0]]: odd[1] };
  return rng.pick<() => string>([
    () => sign(header, payload),
    () => sign(header, payload),
    () => sign(header, payload),
    () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
    () => sign({ alg: 'HS512', typ: 'JWT' }, claims, 'sha512'),
    () => sign({ ...header, kid: rng.pick([1, '../../../../etc/passwd', 'k'.repeat(3000), { a: 1 }, '', null]) }, claims),
    () => sign({ ...header, crit: ['exp'] }, claims),
    () => sign({ ...header, jku: 'http://127.0.0.1:1/jwks.json', jwk: { kty: 'oct', k: 'AAAA' } }, claims),
    () => sign({ alg: 'ES256', typ: 'JWT' }, claims),
    () => sign('not json', claims),
    () => sign(header, rng.pick(['not json', '[]', 'null', '"x"', '{"sub":'])),
  ])();
}

/** Strings in the place of a token: none of them is a JWT the service signed. */
export function garbageToken(rng: Rng): string {
  return rng.pick<() => string>([
    () => '',
    () => 'null',
    () => 'undefined',
    () => 'a.b.c',
    () => '...',
    () => 'eyJ.eyJ.',
    () => `${rng.chars(20)}.${rng.chars(40)}.${rng.chars(43)}`,
    () => `${rng.chars(20)}.${rng.chars(40)}`,
    () => 'a.b.c.d.e',
    () => `${'x'.repeat(rng.pick([1000, 9000]))}`,
    () => '%ZZ',
    () => 'ключ.токен.подпись',
    () => '😀.😀.😀',
    () => '=+/=.=+/=.=+/=',
  ])();
}
