// What the tests of sign-in with external identity providers share (not a test file): the service's
// provider settings, each call of the native flow, of the link by phone and of the signed-in user's
// identities over either transport, answered in one shape so that a test asks both the same question.
import { expect } from '@jest/globals';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  AddIdentityWithIdTokenDocument,
  CompleteExternalSignInDocument,
  LinkExternalIdentityDocument,
  MyIdentitiesDocument,
  RemoveIdentityDocument,
  SignInWithIdTokenDocument,
  VerifyMfaDocument,
} from '../generated/graphql.js';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { expectProblem } from '../rest/support.js';
import { expectNothingInternal } from '../graphql/support.js';
import type { TestProvider } from './provider.js';

export type Transport = 'REST' | 'GraphQL';
export const TRANSPORTS: Transport[] = ['REST', 'GraphQL'];

export const OIDC = '/api/v1/auth/oidc';
const IDENTITIES = '/api/v1/users/me/identities';

/** One entry of IDENTITY_PROVIDERS. */
export interface ProviderEntry {
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret?: string;
  extraAudiences?: string[];
}

/**
 * The service's settings for these providers, and several codes per phone within a test. The
 * timeout towards the provider is generous: these suites test no outage, and a machine busy with
 * other work must not turn a slow answer of the provider into IDENTITY_PROVIDER_ERROR.
 */
export function providersEnv(entries: ProviderEntry[]): Record<string, string> {
  return { IDENTITY_PROVIDERS: JSON.stringify(entries), OIDC_TIMEOUT_MS: '5000', SEND_CODE_INTERVAL_SECONDS: '0' };
}

/** A frontend's binding of a web flow (RFC 7636 S256): the verifier it keeps, the challenge it sends at the start. */
export interface Binding {
  verifier: string;
  challenge: string;
}

/** A fresh binding, as a frontend makes one per flow: 32 random bytes in base64url, and their S256. */
export function newBinding(): Binding {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/**
 * The binding of the suites' frontend: the web flows the helpers start and exchange are bound with it
 * unless a test says otherwise (null: started or exchanged unbound, which the service refuses unless
 * OIDC_REQUIRE_BINDING=false).
 */
export const FRONTEND: Binding = newBinding();

/** The exchange of a sign-in flow's result, with the verifier of `binding` (none when it is null): a REST body, or completeExternalSignIn's variables. */
export function exchangeOf(result: string, binding: Binding | null = FRONTEND): { result: string; codeVerifier?: string } {
  return binding ? { result, codeVerifier: binding.verifier } : { result };
}

/** SHA-256 of `value` in hex, as Apple's SDK puts a nonce in its ID tokens. */
export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** Seconds since the epoch, as JWT timestamps count. */
export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A native-flow body: what the app gives the service after the platform SDK signed in. */
export interface IdTokenBody {
  idToken: string;
  nonce?: string;
}

/**
 * An ID token `op` issues to `clientId` (`web` unless given) for `sub`, with the nonce to send: a
 * fresh one unless `nonce` is given (null: none). The test provider's tokens carry no jti, so two
 * for one sub within a second would be the same token but for the nonce.
 */
export async function idToken(op: TestProvider, sub: string, { nonce = `nonce-${randomUUID()}`, clientId = 'web' }: { nonce?: string | null; clientId?: string } = {}): Promise<IdTokenBody> {
  const issued = await op.issueIdToken({ clientId, sub, nonce: nonce ?? undefined });
  return nonce === null ? { idToken: issued.idToken } : { idToken: issued.idToken, nonce };
}

/** The members an error carries besides its code: REST problem members, GraphQL extensions. */
const MEMBERS = ['linkToken', 'identity', 'mfaToken', 'mfaMethods'] as const;

/** What a call answered: its data, or its error code, fields and members, whatever the transport. */
export interface Outcome {
  data?: any;
  code?: string;
  fields?: Record<string, string>;
  members: Partial<Record<(typeof MEMBERS)[number], any>>;
  status: number;
}

function membersOf(source: Record<string, unknown>): Outcome['members'] {
  return Object.fromEntries(MEMBERS.filter((name) => source[name] !== undefined).map((name) => [name, source[name]]));
}

/** The answer of `res` on `transport`: REST's body (or its problem, checked as one), GraphQL's `field` (or its one error). */
function outcome(res: HttpResult, transport: Transport, field: string): Outcome {
  if (transport === 'REST') {
    if (res.status < 300) return { data: res.body, status: res.status, members: {} };
    const problem = expectProblem(res, res.status, res.body?.code);
    return { code: problem.code, fields: problem.fields, members: membersOf(problem), status: res.status };
  }
  expect(res.status).toBeLessThan(500);
  const error = res.body.errors?.[0];
  if (error) {
    expect(res.body.errors).toHaveLength(1);
    expectNothingInternal(res);
    return { code: error.extensions?.code, fields: error.extensions?.fields, members: membersOf(error.extensions ?? {}), status: res.status };
  }
  return { data: res.body.data[field], status: res.status, members: {} };
}

/** The HTTP status REST answers with each code; GraphQL answers 200. */
const STATUS: Record<string, number> = {
  VALIDATION_FAILED: 400,
  INVALID_CODE: 400,
  INVALID_CREDENTIALS: 401,
  UNAUTHENTICATED: 401,
  MFA_REQUIRED: 401,
  PHONE_VERIFICATION_REQUIRED: 401,
  ACCOUNT_BLOCKED: 403,
  REGISTRATION_DISABLED: 403,
  NOT_FOUND: 404,
  IDENTITY_ALREADY_LINKED: 409,
  RATE_LIMITED: 429,
  IDENTITY_PROVIDER_ERROR: 502,
};

/** The error of an outcome, which must be one, with the status its code has on `transport`. */
export function refusal(result: Outcome, transport: Transport): { code?: string; fields?: Record<string, string> } {
  expect(result.data).toBeUndefined();
  expect({ code: result.code, status: result.status }).toEqual({ code: result.code, status: transport === 'REST' ? STATUS[result.code!] : 200 });
  return { code: result.code, ...(result.fields && { fields: result.fields }) };
}

/** The data of an outcome, which must be one. */
export function accepted(result: Outcome): any {
  expect({ code: result.code, fields: result.fields }).toEqual({ code: undefined, fields: undefined });
  return result.data;
}

/** PHONE_VERIFICATION_REQUIRED's linkToken (and the identity it shows, which must be `identity`). */
export function linkTokenOf(result: Outcome, transport: Transport, identity?: { provider: string; email: string | null; name: string | null }): string {
  expect(refusal(result, transport)).toEqual({ code: 'PHONE_VERIFICATION_REQUIRED' });
  expect(result.members.linkToken).toEqual(expect.stringMatching(/^[\w-]{32,}$/));
  expect(result.members.identity).toEqual(identity ?? { provider: expect.any(String), email: expect.anything(), name: expect.anything() });
  return result.members.linkToken as string;
}

/** MFA_REQUIRED's mfaToken, with the methods it takes. */
export function mfaTokenOf(result: Outcome, transport: Transport): string {
  expect(refusal(result, transport)).toEqual({ code: 'MFA_REQUIRED' });
  expect(result.members).toEqual({ mfaToken: expect.stringMatching(/^[\w-]{32,}$/), mfaMethods: ['totp', 'recovery'] });
  return result.members.mfaToken as string;
}

/** `POST /auth/oidc/{provider}/id-token`, or `signInWithIdToken`; `body` anything, for the malformed ones. */
export async function signInWithIdToken(t: TestServer, provider: string, body: IdTokenBody | Record<string, unknown>, transport: Transport): Promise<Outcome> {
  if (transport === 'REST') return outcome(await t.http.post(`${OIDC}/${encodeURIComponent(provider)}/id-token`, body), transport, '');
  const { idToken, nonce } = body as { idToken: string; nonce?: string };
  return outcome(await t.http.gql(SignInWithIdTokenDocument, { provider, idToken, nonce }), transport, 'signInWithIdToken');
}

/** `POST /auth/oidc/exchange`, or `completeExternalSignIn`, with the verifier of `binding` (the suites' frontend's unless given; null: none). */
export async function exchangeResult(t: TestServer, result: string, transport: Transport, binding: Binding | null = FRONTEND): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${OIDC}/exchange`, exchangeOf(result, binding)), transport, '')
    : outcome(await t.http.gql(CompleteExternalSignInDocument, exchangeOf(result, binding)), transport, 'completeExternalSignIn');
}

/** `POST /auth/oidc/link`, or `linkExternalIdentity`. */
export async function linkByPhone(t: TestServer, input: { linkToken: string; phone: string; code: string }, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${OIDC}/link`, input), transport, '')
    : outcome(await t.http.gql(LinkExternalIdentityDocument, input), transport, 'linkExternalIdentity');
}

/** The second step, of a sign-in or of a step-up: `POST /auth/mfa/verify`, or `verifyMfa`. */
export async function verifyMfa(t: TestServer, mfaToken: string, code: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post('/api/v1/auth/mfa/verify', { mfaToken, code }), transport, '')
    : outcome(await t.http.gql(VerifyMfaDocument, { input: { mfaToken, code } }), transport, 'verifyMfa');
}

/** `POST /users/me/identities/{provider}/id-token`, or `addIdentityWithIdToken`. */
export async function addIdentity(t: TestServer, token: string, provider: string, body: IdTokenBody, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.post(`${IDENTITIES}/${encodeURIComponent(provider)}/id-token`, body, { token }), transport, '')
    : outcome(await t.http.gql(AddIdentityWithIdTokenDocument, { provider, ...body }, { token }), transport, 'addIdentityWithIdToken');
}

/** `GET /users/me/identities`, or `myIdentities`. */
export async function listIdentities(t: TestServer, token: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.get(IDENTITIES, { token }), transport, '')
    : outcome(await t.http.gql(MyIdentitiesDocument, {}, { token }), transport, 'myIdentities');
}

/** `DELETE /users/me/identities/{provider}`, or `removeIdentity`. */
export async function removeIdentity(t: TestServer, token: string, provider: string, transport: Transport): Promise<Outcome> {
  return transport === 'REST'
    ? outcome(await t.http.request('DELETE', `${IDENTITIES}/${encodeURIComponent(provider)}`, { token }), transport, '')
    : outcome(await t.http.gql(RemoveIdentityDocument, { provider }, { token }), transport, 'removeIdentity');
}

/** The identities linked in the database, by account: what no answer can hide. */
export async function linkedRows(t: TestServer): Promise<{ userId: string; provider: string; subject: string }[]> {
  return t.sql('select user_id as "userId", provider, subject from identities order by linked_at, id');
}

/** Sessions of the account (every session when none is named): a sign-in leaves one. */
export async function sessionCount(t: TestServer, userId?: string): Promise<number> {
  const rows = await t.sql<{ n: number }>('select count(*)::int as n from sessions where $1::uuid is null or user_id = $1', [userId ?? null]);
  return rows[0]!.n;
}
