import { describe, expect, it } from '@jest/globals';
import { newPhone, useTestServer } from '../helpers/server.js';
import { expectProblem } from './support.js';

const SEND = '/api/v1/auth/send-code';
const JSON_ENDPOINTS = ['/api/v1/auth/send-code', '/api/v1/auth/login', '/api/v1/auth/login-password', '/api/v1/auth/register', '/api/v1/auth/refresh'];
const LIMIT = 100 * 1024;

const t = useTestServer();

const postRaw = (path: string, rawBody: string, contentType = 'application/json') =>
  t.http.request('POST', path, { rawBody, headers: { 'content-type': contentType } });

/** A send-code body of exactly `bytes` bytes of JSON, padded with an unknown field. */
function sendCodeBody(bytes: number): string {
  const base = JSON.stringify({ phone: newPhone(), padding: '' });
  const body = JSON.stringify({ phone: JSON.parse(base).phone, padding: 'x'.repeat(bytes - Buffer.byteLength(base)) });
  expect(Buffer.byteLength(body)).toBe(bytes);
  return body;
}

describe('malformed requests', () => {
  it.each(JSON_ENDPOINTS)('answers malformed JSON on %s with 400 VALIDATION_FAILED', async (path) => {
    expectProblem(await postRaw(path, '{"phone": "+8613800138000",'), 400, 'VALIDATION_FAILED');
  });

  it.each([
    ['an array', '[{"phone":"+8613800138000"}]'],
    ['a string', '"+8613800138000"'],
    ['null', 'null'],
    ['a number', '42'],
    ['single quotes', "{'phone':'+8613800138000'}"],
  ])('answers a body that is %s with VALIDATION_FAILED', async (_what, raw) => {
    expectProblem(await postRaw(SEND, raw), 400, 'VALIDATION_FAILED');
    expect(await t.outbox()).toEqual([]);
  });

  it('answers a POST without a body with VALIDATION_FAILED naming the missing fields', async () => {
    const problem = expectProblem(await t.http.request('POST', '/api/v1/auth/login'), 400, 'VALIDATION_FAILED');
    expect(Object.keys(problem.fields).sort()).toEqual(['code', 'phone']);
  });

  it('does not parse a body that is not declared as JSON', async () => {
    const res = await postRaw(SEND, JSON.stringify({ phone: newPhone() }), 'text/plain');
    expectProblem(res, 400, 'VALIDATION_FAILED');
    expect(await t.outbox()).toEqual([]);
  });

  it('accepts JSON declared with a charset parameter', async () => {
    const res = await postRaw(SEND, JSON.stringify({ phone: newPhone() }), 'application/json; charset=utf-8');
    expect(res.status).toBe(200);
  });

  it('does not let a __proto__ key set fields', async () => {
    const phone = newPhone();
    const res = await postRaw(SEND, `{"phone":"${phone}","__proto__":{"purpose":"register"}}`);
    expect(res.status).toBe(200);
    expect((await t.outbox()).map((m) => m.purpose)).toEqual(['login']);
  });
});

describe('body size limit (100 KiB)', () => {
  it('accepts a JSON body of exactly 100 KiB, ignoring the unknown padding field', async () => {
    const res = await postRaw(SEND, sendCodeBody(LIMIT));
    expect(res.status).toBe(200);
    expect(await t.outbox()).toHaveLength(1);
  });

  it('refuses a JSON body one byte over 100 KiB with 413 PAYLOAD_TOO_LARGE', async () => {
    expectProblem(await postRaw(SEND, sendCodeBody(LIMIT + 1)), 413, 'PAYLOAD_TOO_LARGE');
    expect(await t.outbox()).toEqual([]);
  });

  it.each(JSON_ENDPOINTS)('refuses a 200 KiB body on %s with 413 PAYLOAD_TOO_LARGE', async (path) => {
    const body = JSON.stringify({ phone: newPhone(), code: '123456', password: 'x'.repeat(2 * LIMIT) });
    expectProblem(await postRaw(path, body), 413, 'PAYLOAD_TOO_LARGE');
  });
});

describe('unknown routes', () => {
  it.each([
    ['GET', '/api/v1/nope'],
    ['POST', '/api/v1/auth/nope'],
    ['GET', '/api/v2/auth/config'],
    ['GET', '/nope'],
  ])('answers %s %s with a 404 NOT_FOUND problem', async (method, path) => {
    expectProblem(await t.http.request(method, path), 404, 'NOT_FOUND');
  });

  it.each([
    ['GET', '/api/v1/auth/login', 'POST'],
    ['DELETE', '/api/v1/auth/config', 'GET, HEAD'],
  ])('answers %s %s, a known path with another method, with 405 METHOD_NOT_ALLOWED and Allow: %s', async (method, path, allow) => {
    const res = await t.http.request(method, path);
    expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe(allow);
  });

  it('answers 404 NOT_FOUND outside /api/v1 and /graphql without parsing the body (malformed or oversized)', async () => {
    expectProblem(await postRaw('/nope', '{"phone":'), 404, 'NOT_FOUND');
    expectProblem(await postRaw('/nope', JSON.stringify({ padding: 'x'.repeat(2 * LIMIT) })), 404, 'NOT_FOUND');
  });
});

describe('unknown routes under the authenticated /users prefix', () => {
  it('answers 404 NOT_FOUND to a signed-in caller', async () => {
    const phone = newPhone();
    await t.http.post(SEND, { phone });
    const login = await t.http.post('/api/v1/auth/login', { phone, code: await t.codeFor(phone) });
    expectProblem(await t.http.get('/api/v1/users/nope', { token: login.body.accessToken }), 404, 'NOT_FOUND');
  });
});

describe('problem documents', () => {
  it('carry a title, a detail and the HTTP status, and nothing internal', async () => {
    const res = await t.http.post(SEND, { phone: 'nope' });
    const body = expectProblem(res, 400, 'INVALID_PHONE');
    expect(body.title).toBe('Invalid phone number');
    expect(body.detail.length).toBeGreaterThan(0);
    expect(body).not.toHaveProperty('stack');
    expect(body).not.toHaveProperty('cause');
  });
});
