import { expect } from '@jest/globals';
import {
  LoginDocument,
  RegisterDocument,
  SendCodeDocument,
  type AuthPayloadFieldsFragment,
  type CodePurpose,
} from '../generated/graphql.js';
import { GOOD_PASSWORD } from '../helpers/factories.js';
import type { GraphQLError, GraphQLResponse, HttpResult } from '../helpers/http.js';
import { newPhone, TEST_JWT_SECRET, type TestServer } from '../helpers/server.js';

export { GOOD_PASSWORD };

/** The REST spelling of each CodePurpose, as the SMS outbox records it. */
export const PURPOSE_NAME: Record<CodePurpose, string> = {
  LOGIN: 'login',
  REGISTER: 'register',
  RESET_PASSWORD: 'reset-password',
  DELETE_ACCOUNT: 'delete-account',
};

/** Asserts a GraphQL success and returns its data. */
export function dataOf<T>(res: HttpResult<GraphQLResponse<T>>): T {
  expect(res.body.errors).toBeUndefined();
  expect(res.status).toBe(200);
  expect(res.body.data).toBeTruthy();
  return res.body.data!;
}

/**
 * Asserts that the operation failed with exactly one error of `code`, and that the error carries
 * nothing internal: no stack trace, no INTERNAL, no server error status.
 */
export function errorOf(res: HttpResult<GraphQLResponse<unknown>>, code: string): GraphQLError {
  expect(res.status).toBeLessThan(500);
  const errors = res.body.errors ?? [];
  expect(errors.map((e) => e.extensions?.code)).toEqual([code]);
  expectNothingInternal(res);
  return errors[0]!;
}

/** No error of the response leaks a stack trace, a source path or an INTERNAL code. */
export function expectNothingInternal(res: HttpResult<GraphQLResponse<unknown>>): void {
  for (const error of res.body.errors ?? []) {
    expect(error.extensions).toBeDefined();
    expect(error.extensions).not.toHaveProperty('stacktrace');
    expect(error.extensions).not.toHaveProperty('exception');
    expect(error.extensions?.code).not.toBe('INTERNAL');
  }
  // JSON escapes a stack trace's newlines, hence the literal backslash-n.
  const text = JSON.stringify(res.body);
  expect(text).not.toMatch(/\\n\s+at |node_modules|\.[jt]s:\d+|insert into|select .+ from|update \w+ set|\$2[aby]\$/i);
  expect(text).not.toContain(TEST_JWT_SECRET);
}

/**
 * Asserts RATE_LIMITED (or `code`, e.g. SERVICE_UNAVAILABLE by policy) from a resolver: HTTP 200
 * (README), `extensions.retryAfter` equal to the Retry-After header; returns it.
 */
export function expectRetryAfter(res: HttpResult<GraphQLResponse<unknown>>, code = 'RATE_LIMITED'): number {
  const error = errorOf(res, code);
  expect(res.status).toBe(200);
  const retryAfter = error.extensions?.retryAfter;
  expect(typeof retryAfter).toBe('number');
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThan(0);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  return retryAfter!;
}

/** Asks for a code over GraphQL and reads it from the SMS outbox. */
export async function gqlCode(t: TestServer, phone: string, purpose: CodePurpose = 'LOGIN'): Promise<string> {
  dataOf(await t.http.gql(SendCodeDocument, { input: { phone, purpose } }));
  return t.codeFor(phone, PURPOSE_NAME[purpose]);
}

/** Signs in by code over GraphQL (creates a code-only account for a new phone). */
export async function gqlLogin(t: TestServer, phone = newPhone()): Promise<AuthPayloadFieldsFragment & { phone: string }> {
  const code = await gqlCode(t, phone, 'LOGIN');
  return { phone, ...dataOf(await t.http.gql(LoginDocument, { input: { phone, code } })).login };
}

/** Registers with a password over GraphQL. */
export async function gqlRegister(
  t: TestServer,
  phone = newPhone(),
  password = GOOD_PASSWORD,
): Promise<AuthPayloadFieldsFragment & { phone: string }> {
  const code = await gqlCode(t, phone, 'REGISTER');
  return { phone, ...dataOf(await t.http.gql(RegisterDocument, { input: { phone, code, password } })).register };
}
