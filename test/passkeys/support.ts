// Shared helpers of the passkey suites (not a test file): each step of a passkey's life over either
// transport, answered in one shape so that a test can ask both the same question.
import { expect } from '@jest/globals';
import {
  AddPasskeyDocument,
  LoginWithPasskeyDocument,
  LogoutDocument,
  MyPasskeysDocument,
  PasskeyLoginOptionsDocument,
  PasskeyRegistrationOptionsDocument,
  RemovePasskeyDocument,
  RefreshTokenDocument,
  RenamePasskeyDocument,
  VerifyMfaDocument,
} from '../generated/graphql.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

export type Transport = 'REST' | 'GraphQL';
export const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];

export const PASSKEYS = '/api/v1/users/me/passkeys';
export const LOGIN_OPTIONS = '/api/v1/auth/passkey/options';
export const LOGIN = '/api/v1/auth/passkey/login';

/** What a call answered: its data, or its error code and fields, whatever the transport. */
export interface Outcome {
  data?: any;
  code?: string;
  fields?: Record<string, string>;
  /** MFA_REQUIRED's members: REST problem members, GraphQL extensions. */
  mfa?: { mfaToken?: unknown; mfaMethods?: unknown };
  status: number;
}

/**
 * The answer of `res` on `transport`: REST's body (or problem, checked as one: `errorStatus` is its
 * HTTP status), GraphQL's `field` (or its one error).
 */
function outcome(res: HttpResult, transport: Transport, field: string): Outcome {
  if (transport === 'REST') {
    if (res.status < 300) return { data: res.body, status: res.status };
    const problem = expectProblem(res, res.status, res.body?.code);
    return { code: problem.code, fields: problem.fields, ...mfaOf(problem), status: res.status };
  }
  expect(res.status).toBeLessThan(500);
  const error = res.body.errors?.[0];
  if (error) {
    expect(res.body.errors).toHaveLength(1);
    return { code: error.extensions?.code, fields: error.extensions?.fields, ...mfaOf(error.extensions ?? {}), status: res.status };
  }
  return { data: res.body.data[field], status: res.status };
}

/** MFA_REQUIRED's members of a problem document or of GraphQL extensions, when there are any. */
function mfaOf(members: { mfaToken?: unknown; mfaMethods?: unknown }): Pick<Outcome, 'mfa'> {
  const { mfaToken, mfaMethods } = members;
  return mfaToken === undefined && mfaMethods === undefined ? {} : { mfa: { mfaToken, mfaMethods } };
}

/** The error of an outcome, which must be one. */
export function refusal(result: Outcome): { code?: string; fields?: Record<string, string> } {
  expect(result.data).toBeUndefined();
  return { code: result.code, ...(result.fields && { fields: result.fields }) };
}

/** The data of an outcome, which must be one. */
export function accepted(result: Outcome): any {
  expect(result.code).toBeUndefined();
  return result.data;
}

export async function registrationOptions(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${PASSKEYS}/registration-options`, undefined, { token }), transport, '')
    : outcome(await t.http.gql(PasskeyRegistrationOptionsDocument, {}, { token }), transport, 'passkeyRegistrationOptions');
}

export async function addPasskey(t: TestServer, token: string | undefined, response: unknown, transport: Transport, name?: string | null): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(PASSKEYS, { response, ...(name !== undefined && { name }) }, { token }), transport, '')
    : outcome(await t.http.gql(AddPasskeyDocument, { response, name }, { token }), transport, 'addPasskey');
}

export async function listPasskeys(t: TestServer, token: string | undefined, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.get(PASSKEYS, { token }), transport, '')
    : outcome(await t.http.gql(MyPasskeysDocument, {}, { token }), transport, 'myPasskeys');
}

export async function renamePasskey(t: TestServer, token: string | undefined, id: string, name: unknown, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.request('PATCH', `${PASSKEYS}/${encodeURIComponent(id)}`, { token, body: { name } }), transport, '')
    : outcome(await t.http.gql(RenamePasskeyDocument, { id, name: name as string }, { token }), transport, 'renamePasskey');
}

export async function removePasskey(t: TestServer, token: string | undefined, id: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.request('DELETE', `${PASSKEYS}/${encodeURIComponent(id)}`, { token }), transport, '')
    : outcome(await t.http.gql(RemovePasskeyDocument, { id }, { token }), transport, 'removePasskey');
}

export async function loginOptions(t: TestServer, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(LOGIN_OPTIONS), transport, '')
    : outcome(await t.http.gql(PasskeyLoginOptionsDocument, {}), transport, 'passkeyLoginOptions');
}

/** The options of a new sign-in challenge: `{ challengeId, options }`. */
export async function newLoginChallenge(t: TestServer, transport: Transport = 'REST'): Promise<{ challengeId: string; options: { challenge: string } }> {
  return accepted(await loginOptions(t, transport));
}

export async function passkeyLogin(t: TestServer, challengeId: unknown, response: unknown, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(LOGIN, { challengeId, response }), transport, '')
    : outcome(await t.http.gql(LoginWithPasskeyDocument, { challengeId: challengeId as string, response }), transport, 'loginWithPasskey');
}

/** The account's security events of `type`, oldest first. */
export async function eventsOf(t: TestServer, userId: string, type: string): Promise<{ type: string; method: string | null }[]> {
  return t.sql('select type, method from security_events where user_id = $1 and type = $2 order by id', [userId, type]);
}

/** The second step (of a sign-in or a step-up): `POST /auth/mfa/verify` or `verifyMfa`. */
export async function verifyMfa(t: TestServer, mfaToken: string, code: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post('/api/v1/auth/mfa/verify', { mfaToken, code }), transport, '')
    : outcome(await t.http.gql(VerifyMfaDocument, { input: { mfaToken, code } }), transport, 'verifyMfa');
}

export async function refresh(t: TestServer, refreshToken: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post('/api/v1/auth/refresh', { refreshToken }), transport, '')
    : outcome(await t.http.gql(RefreshTokenDocument, { refreshToken }), transport, 'refreshToken');
}

export async function logout(t: TestServer, token: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post('/api/v1/auth/logout', {}, { token }), transport, '')
    : outcome(await t.http.gql(LogoutDocument, {}, { token }), transport, 'logout');
}
