import { CATALOGUES } from '../i18n/messages.js';
import { ErrorCode, type AppError } from './app-error.js';

export interface ErrorDescription {
  status: number;
  /** The problem document's `title` in English (each locale's: `title.<CODE>` in the message catalogues). */
  title: string;
  /**
   * The members the answer carries besides `code`, the message and `requestId`: top-level members of
   * the problem document in REST, members of `extensions` in GraphQL (the same names and values).
   */
  extensions: string;
}

const NONE = 'No other members.';

/**
 * Each code's HTTP status and members: the one table that the status of an answer, the GraphQL
 * enum ErrorCode (one value per row, described from it) and the OpenAPI document's list of codes are
 * made from, with its title from the message catalogues. A Record of every code, so a new code
 * without its row does not compile.
 */
const ROWS: Readonly<Record<ErrorCode, Omit<ErrorDescription, 'title'>>> = {
  VALIDATION_FAILED: {
    status: 400,
    extensions: '`fields` (object, when the refusal names fields): each field at fault, by its name in the REST body or the GraphQL input (`phone`, `newPassword`; `(body)` for a REST body that is not JSON) -> what is wrong with it.',
  },
  INVALID_PHONE: { status: 400, extensions: '`fields`: `{ phone }`, why the number is refused (not a mobile number, or a region not served).' },
  WEAK_PASSWORD: { status: 400, extensions: '`fields`: `{ password }` or `{ newPassword }`, what the password lacks.' },
  INVALID_CODE: { status: 400, extensions: `${NONE} The code (SMS, TOTP or recovery) is wrong, expired or used, or the mfaToken is unknown.` },
  INVALID_CREDENTIALS: { status: 401, extensions: NONE },
  MFA_REQUIRED: {
    status: 401,
    extensions: '`mfaToken` (string, single use, 5 minutes): finish with verifyMfa (POST /api/v1/auth/mfa/verify); `mfaMethods` (array of MfaMethod values: `totp`, `recovery`): the codes it takes.',
  },
  PHONE_VERIFICATION_REQUIRED: {
    status: 401,
    extensions: '`linkToken` (string, 10 minutes): finish with linkExternalIdentity (POST /api/v1/auth/oidc/link) and an SMS login code of the phone; `identity` (`{ provider, email, name }`, email and name may be null): the external identity to link, as its provider describes it.',
  },
  SECOND_PROOF_REQUIRED: {
    status: 401,
    extensions: '`proofToken` (string, single use, 5 minutes): finish with completeSecondProof (POST /api/v1/auth/second-proof) and one of the account\'s password, a TOTP code or a recovery code; `methods` (array of `password`, `totp`, `recovery`, `passkey`, `identity`): what the account has (`passkey` and `identity`: sign in with the passkey, or through the linked provider, instead). A sign-in by SMS code to a dormant account.',
  },
  IDENTITY_ALREADY_LINKED: { status: 409, extensions: NONE },
  IDENTITY_PROVIDER_ERROR: { status: 502, extensions: NONE },
  PERSISTED_QUERY_NOT_FOUND: {
    status: 400,
    extensions: `${NONE} GraphQL only: the document's hash is not known yet; send it again with the document (automatic persisted queries).`,
  },
  UNAUTHENTICATED: {
    status: 401,
    extensions:
      '`reason`: `missing` (no token), `invalid` (malformed, a bad signature or unknown; a refresh token unknown, expired or used), `expired` (an access token past its expiry: refresh, then retry) or `session_ended` (its session was logged out, revoked, or its account blocked or deleted: sign in again). REST adds a WWW-Authenticate header.',
  },
  REGISTRATION_DISABLED: { status: 403, extensions: NONE },
  FORBIDDEN: { status: 403, extensions: `${NONE} The account's role does not allow the operation.` },
  ACCOUNT_BLOCKED: { status: 403, extensions: NONE },
  NOT_FOUND: { status: 404, extensions: NONE },
  METHOD_NOT_ALLOWED: { status: 405, extensions: `${NONE} The Allow header lists the methods the path serves.` },
  REQUEST_TIMEOUT: { status: 408, extensions: `${NONE} The connection is closed.` },
  PHONE_ALREADY_REGISTERED: { status: 409, extensions: NONE },
  MFA_ALREADY_ENABLED: { status: 409, extensions: NONE },
  PHONE_TAKEN: { status: 409, extensions: `${NONE} A phone change's new number belongs to another account; told only once the new number was proven with its code.` },
  PAYLOAD_TOO_LARGE: { status: 413, extensions: NONE },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, extensions: NONE },
  INVALID_IMAGE: { status: 422, extensions: NONE },
  RATE_LIMITED: { status: 429, extensions: '`retryAfter` (integer seconds, at least 1): when a retry may pass; also the Retry-After header.' },
  INTERNAL: { status: 500, extensions: `${NONE} The message is a fixed sentence: quote \`requestId\` when reporting it.` },
  SERVICE_UNAVAILABLE: {
    status: 503,
    extensions: '`retryAfter` (integer seconds, also the Retry-After header) when the service paused the operation on purpose (SMS to a region); none when a store it needs is unreachable.',
  },
  SMS_DELIVERY_FAILED: { status: 502, extensions: NONE },
};

const CATALOGUE = Object.fromEntries(
  Object.entries(ROWS).map(([code, row]) => [code, { ...row, title: CATALOGUES.en[`title.${code as ErrorCode}`] }]),
) as Readonly<Record<ErrorCode, ErrorDescription>>;

/** HTTP status, problem title and members of a code. */
export function describe(code: ErrorCode): ErrorDescription {
  const found = CATALOGUE[code];
  if (!found) throw new Error(`Unknown error code ${String(code)}`);
  return found;
}

/** Every code of the catalogue, in the order of its table. */
export const ERROR_CODES = Object.keys(CATALOGUE) as ErrorCode[];

/** A code's row as one sentence, the same in the GraphQL enum ErrorCode and the OpenAPI document. */
export function explain(code: ErrorCode): string {
  const { status, title, extensions } = describe(code);
  return `HTTP ${status}, ${title}. ${extensions}`;
}

/**
 * Failures on our side (or a provider's) that operators must see in the logs, with the cause; not
 * refusals by policy. An identity provider that is down is logged once, by its module, not per request.
 */
export function isServerFault({ code, byPolicy }: AppError): boolean {
  return !byPolicy && (code === ErrorCode.INTERNAL || code === ErrorCode.SERVICE_UNAVAILABLE || code === ErrorCode.SMS_DELIVERY_FAILED);
}
