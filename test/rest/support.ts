// Shared assertions and helpers of the REST suite (not a test file).
import { expect } from '@jest/globals';
import jwt from 'jsonwebtoken';
import type { HttpResult } from '../helpers/http.js';
import { TEST_JWT_SECRET, type TestServer } from '../helpers/server.js';

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LEAKS = [
  /(\\n|\n)\s+at\s/, // a stack frame, raw or JSON-escaped
  /(file:\/\/|node:internal|\/src\/|\/dist\/)[^"\s]*:\d+/, // a source location
  /node_modules/,
  /\.(ts|js|mjs|cjs):\d+/,
  /"stack"/,
  /\b(select|insert|update|delete)\b[^"]*\b(from|into|set|where)\b/i, // SQL
  /\$2[aby]\$\d\d\$/, // a bcrypt hash
];

/** Fails when a response body looks like it carries a stack trace, SQL or a bcrypt hash. */
export function expectNoLeaks(res: HttpResult): void {
  const text = typeof res.body === 'string' ? res.body : JSON.stringify(res.body);
  for (const pattern of LEAKS) expect(text).not.toMatch(pattern);
  expect(text).not.toContain(TEST_JWT_SECRET);
}

/** Asserts an RFC 9457 problem document with this status and code; returns its body. */
export function expectProblem(res: HttpResult, status: number, code: string): any {
  expect({ status: res.status, code: res.body?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ type: 'about:blank', status, code });
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  if (code !== 'RATE_LIMITED') {
    expect(res.body.retryAfter).toBeUndefined();
    expect(res.headers.get('retry-after')).toBeNull();
  }
  if (!['VALIDATION_FAILED', 'INVALID_PHONE', 'WEAK_PASSWORD'].includes(code)) expect(res.body.fields).toBeUndefined();
  if (code === 'UNAUTHENTICATED') expect(res.headers.get('www-authenticate')).toContain('Bearer error="invalid_token"');
  expectNoLeaks(res);
  return res.body;
}

/** Asserts 429 RATE_LIMITED with a Retry-After header equal to `retryAfter` in the body; returns it. */
export function expectRateLimited(res: HttpResult, maxSeconds: number): number {
  const body = expectProblem(res, 429, 'RATE_LIMITED');
  expect(Number.isInteger(body.retryAfter)).toBe(true);
  expect(body.retryAfter).toBeGreaterThanOrEqual(1);
  expect(body.retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers.get('retry-after')).toBe(String(body.retryAfter));
  return body.retryAfter;
}

/** Asserts the `User` shape of API.md, exactly (no extra field such as a password hash). */
export function expectUser(user: any, expected: { id?: string; phone?: string; nickname?: string; hasPassword?: boolean } = {}): void {
  expect(Object.keys(user).sort()).toEqual(['avatarUrl', 'createdAt', 'hasPassword', 'id', 'lastLoginAt', 'nickname', 'phone']);
  expect(user.id).toMatch(UUID);
  expect(user.phone).toMatch(/^\+[1-9]\d{6,14}$/);
  expect(typeof user.nickname).toBe('string');
  expect(user.avatarUrl).toBeNull();
  expect(typeof user.hasPassword).toBe('boolean');
  expect(user.createdAt).toMatch(ISO_UTC);
  if (user.lastLoginAt !== null) expect(user.lastLoginAt).toMatch(ISO_UTC);
  expect(user).toMatchObject(expected);
}

/** Asserts the `AuthPayload` shape of API.md, exactly; default TTLs unless given. */
export function expectAuthPayload(
  body: any,
  expected: { isNewUser: boolean; expiresIn?: number; refreshExpiresIn?: number; user?: Parameters<typeof expectUser>[1] },
): void {
  expect(Object.keys(body).sort()).toEqual(['accessToken', 'expiresIn', 'isNewUser', 'refreshExpiresIn', 'refreshToken', 'tokenType', 'user']);
  expect(body.tokenType).toBe('Bearer');
  expect(body.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  expect(typeof body.refreshToken).toBe('string');
  expect(body.refreshToken.length).toBeGreaterThanOrEqual(43); // 256 bits, base64url
  expect(body.expiresIn).toBe(expected.expiresIn ?? 900);
  expect(body.refreshExpiresIn).toBe(expected.refreshExpiresIn ?? 2592000);
  expect(body.isNewUser).toBe(expected.isNewUser);
  expectUser(body.user, expected.user);
  expect(body.user.lastLoginAt).toMatch(ISO_UTC);
}

/** Another 6-digit code, guaranteed to differ from `code`. */
export function wrongCode(code: string): string {
  return code.slice(0, -1) + String((Number(code.at(-1)) + 1) % 10);
}

/** Lets the next send-code for any phone through (the 60 s interval is tested on its own). */
export async function clearRateLimits(t: TestServer): Promise<void> {
  await t.sql('delete from rate_limits');
}

export interface ForgeOptions {
  sub: string;
  sid: string;
  secret?: string;
  issuer?: string;
  audience?: string;
  algorithm?: jwt.Algorithm;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
}

/** Signs an access token as the service would (or with one thing changed). */
export function forgeToken(o: ForgeOptions): string {
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ sub: o.sub, sid: o.sid, iat: now - 60, exp: now + (o.expiresIn ?? 900), jti: 'forged' }, o.secret ?? TEST_JWT_SECRET, {
    algorithm: o.algorithm ?? 'HS256',
    issuer: o.issuer ?? 'meeting-accounts',
    audience: o.audience ?? 'meeting-app',
  });
}

export function decodeSegment(segment: string): any {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

export function encodeSegment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
