import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import type { ErrorCode, MfaMethod } from './generated/enums.js';

export type { ErrorCode, MfaMethod };

/** Why the service refused an access or refresh token (UNAUTHENTICATED's `reason`). */
export type UnauthenticatedReason = 'missing' | 'invalid' | 'expired' | 'session_ended';

/** The identity an external sign-in proved, which no account has yet (PHONE_VERIFICATION_REQUIRED). */
export interface PendingIdentity {
  provider: string;
  email: string | null;
  name: string | null;
}

/**
 * What a dormant account can prove besides its phone (SECOND_PROOF_REQUIRED): `password`, `totp` and
 * `recovery` go to `completeSecondProof` with the proofToken; `passkey` and `identity` mean signing in
 * with the passkey, or through the linked provider, instead.
 */
export type SecondProofMethod = 'password' | 'totp' | 'recovery' | 'passkey' | 'identity';

/** The members a code's `extensions` carry besides `code` (ErrorCode's values in the schema describe them). */
export interface ExtensionsByCode {
  UNAUTHENTICATED: { reason?: UnauthenticatedReason };
  MFA_REQUIRED: { mfaToken: string; mfaMethods: MfaMethod[] };
  PHONE_VERIFICATION_REQUIRED: { linkToken: string; identity: PendingIdentity };
  SECOND_PROOF_REQUIRED: { proofToken: string; methods: SecondProofMethod[] };
  RATE_LIMITED: { retryAfter?: number };
  VALIDATION_FAILED: { fields?: Record<string, string> };
}

export type ExtensionsOf<C extends ErrorCode> = (C extends keyof ExtensionsByCode ? ExtensionsByCode[C] : unknown) & Record<string, unknown>;

/** A refusal of the API: its code of the catalogue, its message, and the members its code carries. */
export interface ApiError<C extends ErrorCode = ErrorCode> {
  code: C;
  message: string;
  extensions: ExtensionsOf<C>;
}

interface WireError {
  message: string;
  extensions?: Record<string, unknown>;
}

function fromErrors(errors: readonly WireError[]): ApiError | undefined {
  const first = errors.find((error) => typeof error.extensions?.code === 'string');
  if (!first) return undefined;
  return { code: first.extensions!.code as ErrorCode, message: first.message, extensions: first.extensions as ExtensionsOf<ErrorCode> };
}

/**
 * The API's refusal behind a failed Apollo request (GraphQL errors, or an HTTP error whose body holds
 * them), or undefined when there was none: no answer at all, or a proxy's page.
 */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (CombinedGraphQLErrors.is(error)) return fromErrors(error.errors);
  if (ServerError.is(error)) {
    try {
      return fromErrors((JSON.parse(error.bodyText) as { errors?: WireError[] }).errors ?? []);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Whether a refusal (from `apiErrorOf`) has `code`: its `extensions` are then typed for that code. */
export function isApiError<C extends ErrorCode>(refusal: ApiError | undefined, code: C): refusal is ApiError<C> {
  return refusal?.code === code;
}

/** The refusal in a GraphQL result's errors (a link sees these before they are thrown). */
export function apiErrorIn(errors: readonly WireError[] | undefined): ApiError | undefined {
  return errors ? fromErrors(errors) : undefined;
}
