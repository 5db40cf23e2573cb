// Shared helpers of the dormant-account suite (not a test file): sign-ins by SMS code and second
// proofs on either transport, read alike, and accounts made dormant by moving their timestamps.
import { expect } from '@jest/globals';
import { requestCode } from '../helpers/factories.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';

export type Transport = 'REST' | 'GraphQL';
export const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];

const SECOND_PROOF = '/api/v1/auth/second-proof';
const PAYLOAD = 'accessToken refreshToken user { id phone }';

/** What a call answered on either transport: its payload, or its code and members (problem members, GraphQL extensions). */
export interface Outcome {
  status: number;
  data?: any;
  code?: string;
  members: Record<string, any>;
}

function outcome(res: HttpResult, transport: Transport, field: string): Outcome {
  if (transport === 'REST') {
    if (res.status < 300) return { status: res.status, data: res.body, members: {} };
    const problem = expectProblem(res, res.status, res.body?.code);
    return { status: res.status, code: problem.code, members: problem };
  }
  expect(res.status).toBeLessThan(500);
  const errors = res.body.errors ?? [];
  if (errors.length > 0) {
    expect(errors).toHaveLength(1);
    expect(res.body.data).toBeNull();
    return { status: res.status, code: errors[0].extensions?.code, members: errors[0].extensions ?? {} };
  }
  return { status: res.status, data: res.body.data[field], members: {} };
}

/** The refusal's code and HTTP status on REST (GraphQL answers 200 with the error). */
export function expectRefused(result: Outcome, transport: Transport, status: number, code: string): Record<string, any> {
  expect({ code: result.code, data: result.data }).toEqual({ code, data: undefined });
  expect(result.status).toBe(transport === 'REST' ? status : 200);
  return result.members;
}

/** The payload of a sign-in that went through. */
export function signedIn(result: Outcome): any {
  expect({ code: result.code, members: result.members }).toEqual({ code: undefined, members: {} });
  expect(result.data.accessToken).toEqual(expect.any(String));
  return result.data;
}

/** Signs in with a login code of `phone`: `sent`, or a new one sent now. */
export async function codeLogin(t: TestServer, phone: string, transport: Transport, sent?: string): Promise<Outcome> {
  const code = sent ?? (await requestCode(t, phone, 'login'));
  if (transport === 'REST') return outcome(await t.http.post('/api/v1/auth/login', { phone, code }), transport, '');
  const query = `mutation($i: CodeLoginInput!) { login(input: $i) { ${PAYLOAD} } }`;
  return outcome(await t.http.post('/graphql', { query, variables: { i: { phone, code } } }), transport, 'login');
}

export interface Proof {
  proofToken?: unknown;
  password?: unknown;
  totp?: unknown;
  recoveryCode?: unknown;
}

/** POST /auth/second-proof, or completeSecondProof. */
export async function secondProof(t: TestServer, proof: Proof, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') return outcome(await t.http.post(SECOND_PROOF, proof), transport, '');
  const query = `mutation($p: String!, $pw: String, $t: String, $r: String) {
    completeSecondProof(proofToken: $p, password: $pw, totp: $t, recoveryCode: $r) { ${PAYLOAD} } }`;
  const variables = { p: proof.proofToken, pw: proof.password, t: proof.totp, r: proof.recoveryCode };
  return outcome(await t.http.post('/graphql', { query, variables }), transport, 'completeSecondProof');
}

/** POST /auth/oidc/link, or linkExternalIdentity: a link token's identity linked with a phone's login code. */
export async function linkByPhone(t: TestServer, input: { linkToken: string; phone: string; code: string }, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') return outcome(await t.http.post('/api/v1/auth/oidc/link', input), transport, '');
  const query = `mutation($l: String!, $p: String!, $c: String!) { linkExternalIdentity(linkToken: $l, phone: $p, code: $c) { ${PAYLOAD} } }`;
  return outcome(await t.http.post('/graphql', { query, variables: { l: input.linkToken, p: input.phone, c: input.code } }), transport, 'linkExternalIdentity');
}

/** POST /auth/mfa/verify, or verifyMfa. */
export async function verifyMfa(t: TestServer, mfaToken: string, code: string, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') return outcome(await t.http.post('/api/v1/auth/mfa/verify', { mfaToken, code }), transport, '');
  const query = `mutation($i: VerifyMfaInput!) { verifyMfa(input: $i) { ${PAYLOAD} } }`;
  return outcome(await t.http.post('/graphql', { query, variables: { i: { mfaToken, code } } }), transport, 'verifyMfa');
}

/**
 * Makes the account look unused for `days`: created, last signed in and every session last used
 * that long ago (the server's default PHONE_DORMANT_DAYS is 365).
 */
export async function makeDormant(t: TestServer, userId: string, days = 400): Promise<void> {
  const ago = `now() - make_interval(days => ${days})`;
  await t.sql(`update users set created_at = ${ago} - interval '1 day', last_login_at = ${ago} where id = $1`, [userId]);
  await t.sql(`update sessions set created_at = ${ago}, last_used_at = ${ago} where user_id = $1`, [userId]);
}

/** A code sign-in that answered SECOND_PROOF_REQUIRED: its proofToken and methods. */
export async function proofRequired(t: TestServer, phone: string, transport: Transport): Promise<{ proofToken: string; methods: string[] }> {
  const members = expectRefused(await codeLogin(t, phone, transport), transport, 401, 'SECOND_PROOF_REQUIRED');
  expect(members.proofToken).toMatch(/^[\w-]{43}$/);
  return { proofToken: members.proofToken, methods: members.methods };
}

/** The types of the account's security events, oldest first. */
export async function eventTypes(t: TestServer, userId: string): Promise<string[]> {
  const rows = await t.sql<{ type: string }>('select type from security_events where user_id = $1 order by id', [userId]);
  return rows.map((row) => row.type);
}

/** The account's sessions, live or not. */
export async function sessionCount(t: TestServer, userId: string): Promise<number> {
  return (await t.sql<{ n: number }>('select count(*)::int as n from sessions where user_id = $1', [userId]))[0]!.n;
}
