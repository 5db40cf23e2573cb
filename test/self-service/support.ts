// Shared helpers of the account self-service suite (not a test file).
import { expect } from '@jest/globals';
import jwt from 'jsonwebtoken';
import sharp from 'sharp';
import { MeDocument, RefreshTokenDocument } from '../generated/graphql.js';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

export const ME = '/api/v1/users/me';
export const PASSWORD = '/api/v1/users/me/password';
export const SESSIONS = '/api/v1/users/me/sessions';
export const RESET = '/api/v1/auth/reset-password';
const LOGIN_PASSWORD = '/api/v1/auth/login-password';
export const REFRESH = '/api/v1/auth/refresh';
export const NEW_PASSWORD = 'copper-lantern-77';

/** Settings of every self-service test server: several codes per phone within one test. */
export const SERVER_ENV = { SEND_CODE_INTERVAL_SECONDS: '0' };

export interface Tokens {
  accessToken: string;
  refreshToken: string;
}

/** The session id (`sid` claim) of an access token. */
export function sessionIdOf(accessToken: string): string {
  return (jwt.decode(accessToken) as { sid: string }).sid;
}

/** Another sign-in of an account with a password (a new session), optionally with a User-Agent. */
export async function passwordLogin(t: TestServer, phone: string, password = GOOD_PASSWORD, userAgent?: string): Promise<Tokens & { body: any }> {
  const headers: Record<string, string> = userAgent ? { 'user-agent': userAgent } : {};
  const res = await t.http.post(LOGIN_PASSWORD, { phone, password }, { headers });
  expect(res.status).toBe(200);
  return { accessToken: res.body.accessToken, refreshToken: res.body.refreshToken, body: res.body };
}

/** Asserts the sign-in result of a password: 200, or 401 INVALID_CREDENTIALS. */
export async function expectPasswordAccepted(t: TestServer, phone: string, password: string, accepted: boolean): Promise<void> {
  const res = await t.http.post(LOGIN_PASSWORD, { phone, password });
  if (accepted) expect(res.status).toBe(200);
  else expectProblem(res, 401, 'INVALID_CREDENTIALS');
}

/** Asserts 204 with an empty body. */
export function expectNoContent(res: HttpResult): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: 204, body: '' });
}

/** The session's access token still opens /users/me (REST and GraphQL). */
export async function expectAccessWorks(t: TestServer, tokens: Tokens): Promise<void> {
  expect((await t.http.get(ME, { token: tokens.accessToken })).status).toBe(200);
  const gql = await t.http.gql(MeDocument, {}, { token: tokens.accessToken });
  expect(gql.body.errors).toBeUndefined();
}

/**
 * The session has ended: its access token is refused on both transports and its refresh token is
 * refused (401 UNAUTHENTICATED). The refresh check uses the token, so call it once per session.
 */
export async function expectSessionEnded(t: TestServer, tokens: Tokens): Promise<void> {
  expectProblem(await t.http.get(ME, { token: tokens.accessToken }), 401, 'UNAUTHENTICATED');
  const gql = await t.http.gql(MeDocument, {}, { token: tokens.accessToken });
  expect(gql.body.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  expectProblem(await t.http.post(REFRESH, { refreshToken: tokens.refreshToken }), 401, 'UNAUTHENTICATED');
}

/** GraphQL variant of the refresh check: refreshToken(...) answers UNAUTHENTICATED. */
export async function expectGqlRefreshRefused(t: TestServer, refreshToken: string): Promise<void> {
  const res = await t.http.gql(RefreshTokenDocument, { refreshToken });
  expect(res.body.errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
}

/** A small PNG (64×64, one colour). */
function smallPng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 64, channels: 3, background: '#123456' } })
    .png()
    .toBuffer();
}

/** Uploads an avatar over REST multipart (field `file`); returns the response. */
export async function uploadAvatar(t: TestServer, accessToken: string): Promise<HttpResult> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await smallPng())], { type: 'image/png' }), 'avatar.png');
  const response = await fetch(`${t.url}${ME}/avatar`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}` }, body: form });
  const text = await response.text();
  const body = /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body };
}

/** Rows of `table` that belong to the user. */
export async function countRows(t: TestServer, table: string, column: string, value: string): Promise<number> {
  const [row] = await t.sql<{ n: number }>(`select count(*)::int as n from ${table} where ${column} = $1`, [value]);
  return row!.n;
}
