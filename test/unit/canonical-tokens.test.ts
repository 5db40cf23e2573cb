// The canonical form of values that may be used once (src/shared/tokens/canonical.ts): the cheap
// check answers as decoding and encoding again would, and only the one spelling of a token has a key.
import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomInt } from 'node:crypto';
import { idTokenReplayKey, isCanonicalBase64url, isCanonicalJws, oneTimeTokenHash } from '../../src/shared/tokens/canonical.js';
import { spellingsOf } from '../helpers/spellings.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('canonical base64url', () => {
  it('is what decoding and encoding again gives back, for every string of the alphabet up to 9 characters tried', () => {
    for (let i = 0; i < 20_000; i++) {
      const value = Array.from({ length: 1 + randomInt(9) }, () => ALPHABET[randomInt(64)]).join('');
      expect([value, isCanonicalBase64url(value)]).toEqual([value, Buffer.from(value, 'base64url').toString('base64url') === value]);
    }
  });

  it('refuses padding, whitespace, other alphabets and the empty string', () => {
    for (const value of ['YQ==', 'YQ=', 'YQ\n', ' YQ', 'Y Q', 'a+b/', '', 'ＹＱ']) expect([value, isCanonicalBase64url(value)]).toEqual([value, false]);
    expect(isCanonicalBase64url('YQ')).toBe(true);
  });
});

describe('a compact JWS', () => {
  const jws = `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from('{"sub":"a"}').toString('base64url')}.${randomBytes(256).toString('base64url')}`;

  it('is canonical with three canonical segments and nothing around them', () => {
    expect(isCanonicalJws(jws)).toBe(true);
    for (const bad of ['a.b', `${jws}.x`, `.${jws}`, `${jws}.`, 'YQ..YQ', 'YQ.YQ.a']) expect([bad, isCanonicalJws(bad)]).toEqual([bad, false]);
  });

  it('has a replay key in its own spelling only, the same whatever its signature', () => {
    const key = idTokenReplayKey(jws)!;
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const [header, payload] = jws.split('.');
    expect(idTokenReplayKey(`${header}.${payload}.${randomBytes(256).toString('base64url')}`)).toBe(key);
    const others = spellingsOf(jws);
    expect(others.length).toBeGreaterThanOrEqual(9);
    for (const { name, value } of others) {
      const other = idTokenReplayKey(value);
      expect([name, other === undefined || other !== key]).toEqual([name, true]);
    }
  });
});

describe('an opaque one-time token', () => {
  it('has a hash in its own 43-character spelling only', () => {
    const token = randomBytes(32).toString('base64url');
    expect(oneTimeTokenHash(token)).toMatch(/^[0-9a-f]{64}$/);
    for (const { name, value } of spellingsOf(token)) expect([name, oneTimeTokenHash(value) === oneTimeTokenHash(token)]).toEqual([name, false]);
    for (const { name, value } of spellingsOf(token).filter((s) => !/case/.test(s.name))) expect([name, oneTimeTokenHash(value)]).toEqual([name, undefined]);
    expect(oneTimeTokenHash(randomBytes(33).toString('base64url'))).toBeUndefined();
  });
});
