// Shared assertions and helpers of the REST suite (not a test file).
import { expect } from '@jest/globals';
import type { HttpResult } from '../helpers/http.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

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
  // Retry-After goes with RATE_LIMITED, and with SERVICE_UNAVAILABLE when it is a pause by policy.
  if (code !== 'RATE_LIMITED' && code !== 'SERVICE_UNAVAILABLE') {
    expect(res.body.retryAfter).toBeUndefined();
    expect(res.headers.get('retry-after')).toBeNull();
  }
  if (res.body.retryAfter !== undefined) expect(res.headers.get('retry-after')).toBe(String(res.body.retryAfter));
  if (!['VALIDATION_FAILED', 'INVALID_PHONE', 'WEAK_PASSWORD'].includes(code)) expect(res.body.fields).toBeUndefined();
  if (code === 'UNAUTHENTICATED') expect(res.headers.get('www-authenticate')).toContain('Bearer error="invalid_token"');
  expectNoLeaks(res);
  return res.body;
}

/** Asserts 429 RATE_LIMITED with a Retry-After header equal to `retryAfter` in the body; returns it. */
export function expectRateLimited(res: HttpResult, maxSeconds: number): number {
  return expectRetryLater(res, 429, 'RATE_LIMITED', maxSeconds).retryAfter;
}

/** Asserts a problem that tells when to retry: whole seconds, 1 to `maxSeconds`, in the body and the Retry-After header; returns the body. */
export function expectRetryLater(res: HttpResult, status: number, code: string, maxSeconds: number): any {
  const body = expectProblem(res, status, code);
  expect(Number.isInteger(body.retryAfter)).toBe(true);
  expect(body.retryAfter).toBeGreaterThanOrEqual(1);
  expect(body.retryAfter).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers.get('retry-after')).toBe(String(body.retryAfter));
  return body;
}

