import { z } from 'zod';
import { ChangePasswordSchema, DeleteAccountSchema, UpdateProfileSchema } from '../modules/account/account.inputs.js';
import { BlockUserSchema, ChangePhoneSchema, SetRoleSchema } from '../modules/admin/admin.inputs.js';
import {
  CodeLoginSchema,
  LogoutSchema,
  PasswordLoginSchema,
  RefreshSchema,
  RegisterSchema,
  ResetPasswordSchema,
  SendCodeSchema,
  VerifyMfaSchema,
} from '../modules/auth/auth.inputs.js';
import { ExchangeSchema, IdTokenSchema, LinkByPhoneSchema, ResultSchema } from '../modules/identity/identity.inputs.js';
import { MfaCodeSchema } from '../modules/mfa/mfa.inputs.js';
import { PhoneChangeCodeSchema, StartPhoneChangeSchema, VerifyAccountSchema } from '../modules/phone-change/phone-change.inputs.js';
import { SecondProofSchema } from '../modules/auth/second-proof.inputs.js';
import { AddPasskeySchema, PasskeyLoginSchema, RenamePasskeySchema } from '../modules/passkey/passkey.inputs.js';
import { MeetingUsageSchema } from '../modules/stats/usage.inputs.js';
import { describe as describeCode } from '../shared/errors/catalogue.js';
import type { ErrorCode } from '../shared/errors/app-error.js';
import {
  AdminUserJson,
  AdminUserListJson,
  AuditLogJson,
  AuthPayloadJson,
  HealthJson,
  IdentityJson,
  JwksJson,
  MfaStatusJson,
  PasskeyJson,
  PasskeyLoginOptionsJson,
  PasskeyRegistrationOptionsJson,
  PhoneChangeJson,
  Problem,
  PublicConfigJson,
  RecoveryCodesJson,
  SecurityEventListJson,
  SendCodeResultJson,
  SessionJson,
  TotpEnrollmentJson,
  UserJson,
  UserStatsJson,
  WebhookDeliveryJson,
  WebhookDeliveryListJson,
} from './shapes.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** `bearer-or-body`: a bearer token, or a credential in the body instead (logout's refreshToken). */
type Auth = 'none' | 'bearer' | 'bearer-or-body' | 'internal';

interface Operation {
  method: Method;
  path: string;
  summary: string;
  auth: Auth;
  /** The zod schema the route parses its JSON body with. */
  body?: z.ZodType;
  /** A multipart upload with one file in `file`. */
  upload?: boolean;
  /** A form (application/x-www-form-urlencoded) a provider's page posts. */
  form?: boolean;
  /** Query string parameters, as JSON Schema. */
  query?: { name: string; description: string; schema: Record<string, unknown> }[];
  ok: { status: number; schema?: z.ZodType; content?: string; description: string };
  errors: ErrorCode[];
}

const ALWAYS: ErrorCode[] = ['INTERNAL', 'SERVICE_UNAVAILABLE'];
const BEARER: ErrorCode[] = ['UNAUTHENTICATED'];

/** `?cursor=&limit=` of a list (shared/pagination.ts). */
const PAGE = (what: string): NonNullable<Operation['query']> => [
  { name: 'cursor', description: 'nextCursor of the previous page', schema: { type: 'string' } },
  { name: 'limit', description: `${what} per page`, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
];

/** Every REST route of the service. A test checks this list against the routes Express really has. */
export const OPERATIONS: Operation[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', auth: 'none', ok: { status: 200, schema: HealthJson, description: 'The process runs' }, errors: [] },
  { method: 'get', path: '/readyz', summary: 'Readiness: database (and Redis) reachable, not shutting down', auth: 'none', ok: { status: 200, schema: HealthJson, description: 'Ready' }, errors: ['SERVICE_UNAVAILABLE'] },
  ...['/.well-known/jwks.json', '/api/v1/.well-known/jwks.json'].map((path) => ({
    method: 'get' as const, path, summary: 'Public keys of the access tokens (JWKS), for services that verify them', auth: 'none' as const,
    ok: { status: 200, schema: JwksJson, description: 'JWK set; cacheable (Cache-Control public, ETag)' }, errors: [],
  })),
  { method: 'get', path: '/api/v1/openapi.json', summary: 'This document', auth: 'none', ok: { status: 200, description: 'OpenAPI 3.1 document' }, errors: [] },
  { method: 'get', path: '/api/v1/auth/config', summary: 'Public configuration', auth: 'none', ok: { status: 200, schema: PublicConfigJson, description: 'Registration switch, about, help center, limits' }, errors: [] },
  {
    method: 'post', path: '/api/v1/auth/send-code', summary: 'Send a verification code by SMS', auth: 'none', body: SendCodeSchema,
    ok: { status: 200, schema: SendCodeResultJson, description: 'Sent (for reset-password and delete-account also when the phone has no account, but then nothing is sent)' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'PHONE_ALREADY_REGISTERED', 'REGISTRATION_DISABLED', 'ACCOUNT_BLOCKED', 'RATE_LIMITED', 'SMS_DELIVERY_FAILED'],
  },
  {
    method: 'post', path: '/api/v1/auth/login', summary: 'Sign in with an SMS code (creates the account when registration is on)', auth: 'none', body: CodeLoginSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'INVALID_CODE', 'REGISTRATION_DISABLED', 'SECOND_PROOF_REQUIRED', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/login-password', summary: 'Sign in with a password', auth: 'none', body: PasswordLoginSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'INVALID_CREDENTIALS', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/mfa/verify', summary: 'Finish a sign-in or a step-up that answered MFA_REQUIRED with a TOTP or recovery code', auth: 'none', body: VerifyMfaSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in, or (a step-up) fresh tokens of the session that asked; the access token names both factors in amr' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'ACCOUNT_BLOCKED', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/second-proof', auth: 'none', body: SecondProofSchema,
    summary: "Finish a dormant account's sign-in that answered SECOND_PROOF_REQUIRED with exactly one of its password, a TOTP code or a recovery code",
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in (a TOTP or recovery code); after a password, an account with TOTP on answers MFA_REQUIRED' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'INVALID_CREDENTIALS', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/register', summary: 'Create an account with a register code and a password', auth: 'none', body: RegisterSchema,
    ok: { status: 201, schema: AuthPayloadJson, description: 'Created and signed in' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'WEAK_PASSWORD', 'INVALID_CODE', 'PHONE_ALREADY_REGISTERED', 'REGISTRATION_DISABLED', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/refresh', summary: 'Rotate a refresh token', auth: 'none', body: RefreshSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'A new pair; the old refresh token stops working' },
    errors: ['VALIDATION_FAILED', 'UNAUTHENTICATED', 'ACCOUNT_BLOCKED'],
  },
  {
    method: 'post', path: '/api/v1/auth/reset-password', summary: 'Set a new password with a reset-password code', auth: 'none', body: ResetPasswordSchema,
    ok: { status: 204, description: 'Password set; every session revoked' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'WEAK_PASSWORD', 'INVALID_CODE', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/passkey/options', summary: 'Start a passkey sign-in (no phone): request options under a single-use challenge', auth: 'none',
    ok: { status: 200, schema: PasskeyLoginOptionsJson, description: 'Options for navigator.credentials.get() and the challenge to send back' },
    errors: ['RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/passkey/login', summary: 'Sign in with a passkey (no second factor is asked)', auth: 'none', body: PasskeyLoginSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in' },
    errors: ['VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'ACCOUNT_BLOCKED'],
  },
  {
    method: 'post', path: '/api/v1/auth/logout', auth: 'bearer-or-body', body: LogoutSchema,
    summary: "Revoke the current session, or all of them; with refreshToken (no bearer token needed; one sent along must be of the same account), that refresh token's session",
    ok: { status: 204, description: 'Revoked' }, errors: ['VALIDATION_FAILED', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/auth/oidc/{provider}/authorize', summary: "Start a sign-in at an external provider (web flow): a redirect to the provider's authorization URL", auth: 'none',
    query: [
      { name: 'returnTo', description: 'Where the browser comes back with ?result= or ?error=: one of OIDC_RETURN_URLS, exactly', schema: { type: 'string', maxLength: 2048 } },
      { name: 'codeChallenge', description: 'Required unless OIDC_REQUIRE_BINDING=false: the S256 challenge (base64url SHA-256) of a verifier the frontend keeps; the result is then exchanged with that verifier only', schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' } },
    ],
    ok: { status: 302, description: "To the provider (with Accept: application/json, 200 { url } instead)" },
    errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'IDENTITY_PROVIDER_ERROR', 'RATE_LIMITED'],
  },
  ...(['get', 'post'] as const).map((method) => ({
    method, path: '/api/v1/auth/oidc/{provider}/callback', auth: 'none' as const, form: method === 'post',
    summary: method === 'get' ? "The provider's return (query): a redirect to returnTo with ?result= or ?error=" : "The provider's return (a form, response_mode=form_post): as the GET",
    query: method === 'get' ? [{ name: 'state', description: 'The flow it ends', schema: { type: 'string' } }, { name: 'code', description: 'The code to exchange', schema: { type: 'string' } }, { name: 'error', description: "The provider's refusal", schema: { type: 'string' } }] : undefined,
    ok: { status: 302, description: 'To returnTo, with a one-time result (60 s) or an error; never a token' },
    errors: ['VALIDATION_FAILED', 'NOT_FOUND'] as ErrorCode[],
  })),
  {
    method: 'post', path: '/api/v1/auth/oidc/exchange', summary: "Sign in with a web flow's one-time result and the verifier of its codeChallenge (required unless OIDC_REQUIRE_BINDING=false)", auth: 'none', body: ExchangeSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in' },
    errors: ['VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'PHONE_VERIFICATION_REQUIRED', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED'],
  },
  {
    method: 'post', path: '/api/v1/auth/oidc/{provider}/id-token', summary: "Sign in with a platform SDK's ID token (native flow)", auth: 'none', body: IdTokenSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in' },
    errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'INVALID_CREDENTIALS', 'PHONE_VERIFICATION_REQUIRED', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED', 'IDENTITY_PROVIDER_ERROR', 'RATE_LIMITED'],
  },
  {
    method: 'post', path: '/api/v1/auth/oidc/link', summary: "Link an identity no account has to a phone's account (created when there is none) with the phone's login code, and sign in", auth: 'none', body: LinkByPhoneSchema,
    ok: { status: 200, schema: AuthPayloadJson, description: 'Signed in (isNewUser when the account was created)' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'INVALID_CREDENTIALS', 'INVALID_CODE', 'REGISTRATION_DISABLED', 'IDENTITY_ALREADY_LINKED', 'SECOND_PROOF_REQUIRED', 'MFA_REQUIRED', 'ACCOUNT_BLOCKED', 'RATE_LIMITED'],
  },
  { method: 'get', path: '/api/v1/users/me', summary: 'The signed-in user', auth: 'bearer', ok: { status: 200, schema: UserJson, description: 'The user' }, errors: BEARER },
  {
    method: 'patch', path: '/api/v1/users/me', summary: 'Update the profile', auth: 'bearer', body: UpdateProfileSchema,
    ok: { status: 200, schema: UserJson, description: 'The updated user' }, errors: ['VALIDATION_FAILED', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/users/me', summary: 'Delete the account with a delete-account code', auth: 'bearer', body: DeleteAccountSchema,
    ok: { status: 204, description: 'Deleted' }, errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'put', path: '/api/v1/users/me/password', summary: 'Change or set the password', auth: 'bearer', body: ChangePasswordSchema,
    ok: { status: 204, description: 'Changed; every other session revoked' },
    errors: ['VALIDATION_FAILED', 'WEAK_PASSWORD', 'INVALID_CREDENTIALS', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/avatar', summary: 'Replace the avatar', auth: 'bearer', upload: true,
    ok: { status: 200, schema: UserJson, description: 'The user with the new avatarUrl' },
    errors: ['VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'INVALID_IMAGE', ...BEARER],
  },
  { method: 'get', path: '/api/v1/users/me/stats', summary: 'Personal statistics', auth: 'bearer', ok: { status: 200, schema: UserStatsJson, description: 'Statistics' }, errors: BEARER },
  {
    method: 'get', path: '/api/v1/users/me/sessions', summary: 'Live sessions, newest first', auth: 'bearer',
    ok: { status: 200, schema: z.array(SessionJson), description: 'Sessions' }, errors: BEARER,
  },
  {
    method: 'delete', path: '/api/v1/users/me/sessions/{id}', summary: 'Revoke one session', auth: 'bearer',
    ok: { status: 204, description: 'Revoked' }, errors: ['NOT_FOUND', ...BEARER],
  },
  { method: 'get', path: '/api/v1/users/me/mfa', summary: 'Second factors of the signed-in user', auth: 'bearer', ok: { status: 200, schema: MfaStatusJson, description: 'TOTP on or off, recovery codes left, passkeys' }, errors: BEARER },
  {
    method: 'post', path: '/api/v1/users/me/mfa/totp', summary: 'Start a TOTP enrolment (replaces a pending one)', auth: 'bearer',
    ok: { status: 200, schema: TotpEnrollmentJson, description: 'A pending secret, on once confirmed' }, errors: ['MFA_ALREADY_ENABLED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/mfa/totp/confirm', summary: 'Turn TOTP on with a code of the pending secret', auth: 'bearer', body: MfaCodeSchema,
    ok: { status: 200, schema: RecoveryCodesJson, description: 'On; the recovery codes, shown once' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'NOT_FOUND', 'MFA_ALREADY_ENABLED', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/users/me/mfa/totp', summary: 'Turn TOTP off with a TOTP or recovery code', auth: 'bearer', body: MfaCodeSchema,
    ok: { status: 204, description: 'Off; recovery codes removed, every other session ended' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'NOT_FOUND', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/mfa/recovery-codes', summary: 'Replace the recovery codes, with a TOTP or recovery code', auth: 'bearer', body: MfaCodeSchema,
    ok: { status: 200, schema: RecoveryCodesJson, description: 'The new codes, shown once; the old ones stop working' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'NOT_FOUND', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/users/me/phone-change', summary: 'The pending (PENDING or WAITING) change of the phone number', auth: 'bearer',
    ok: { status: 200, schema: PhoneChangeJson, description: 'The change' }, errors: ['NOT_FOUND', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/phone-change', summary: 'Start a change of the phone number (replaces a pending one); a code goes to the new number', auth: 'bearer', body: StartPhoneChangeSchema,
    ok: { status: 201, schema: PhoneChangeJson, description: 'PENDING' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'SMS_DELIVERY_FAILED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/phone-change/verify-new', summary: "Prove the new number with its code", auth: 'bearer', body: PhoneChangeCodeSchema,
    ok: { status: 200, schema: PhoneChangeJson, description: 'The new number proven; APPLIED when the account was proven too' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'PHONE_TAKEN', 'NOT_FOUND', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/phone-change/send-current-code', summary: 'Send a code to the current number (the account proof)', auth: 'bearer',
    ok: { status: 200, schema: PhoneChangeJson, description: 'Sent' },
    errors: ['NOT_FOUND', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'SMS_DELIVERY_FAILED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/phone-change/verify-account', summary: "Prove the account: the current number's code, a TOTP or a recovery code (at most one; none: the session's recent passkey, provider or second factor)", auth: 'bearer', body: VerifyAccountSchema,
    ok: { status: 200, schema: PhoneChangeJson, description: 'The account proven; APPLIED when the new number was proven too' },
    errors: ['VALIDATION_FAILED', 'INVALID_CODE', 'PHONE_TAKEN', 'NOT_FOUND', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/phone-change/wait', summary: 'The lost-phone path: the change waits PHONE_RECOVERY_DELAY_HOURS, told to the current number', auth: 'bearer',
    ok: { status: 200, schema: PhoneChangeJson, description: 'WAITING, with appliesAt' },
    errors: ['VALIDATION_FAILED', 'PHONE_TAKEN', 'NOT_FOUND', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'SMS_DELIVERY_FAILED', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/users/me/phone-change', summary: 'Cancel the pending or waiting change', auth: 'bearer',
    ok: { status: 204, description: 'Cancelled' }, errors: ['NOT_FOUND', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/users/me/security-events', summary: 'Security events of the signed-in user, newest first', auth: 'bearer',
    query: PAGE('Events'),
    ok: { status: 200, schema: SecurityEventListJson, description: 'A page of events' }, errors: ['VALIDATION_FAILED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/passkeys/registration-options', summary: 'Start adding a passkey: creation options under a single-use challenge', auth: 'bearer',
    ok: { status: 200, schema: PasskeyRegistrationOptionsJson, description: 'Options for navigator.credentials.create()' },
    errors: ['VALIDATION_FAILED', 'MFA_REQUIRED', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/passkeys', summary: 'Add the passkey navigator.credentials.create() made', auth: 'bearer', body: AddPasskeySchema,
    ok: { status: 201, schema: PasskeyJson, description: 'Added' }, errors: ['VALIDATION_FAILED', 'MFA_REQUIRED', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/users/me/passkeys', summary: "The signed-in user's passkeys, oldest first", auth: 'bearer',
    ok: { status: 200, schema: z.array(PasskeyJson), description: 'Passkeys' }, errors: BEARER,
  },
  {
    method: 'patch', path: '/api/v1/users/me/passkeys/{id}', summary: 'Rename a passkey', auth: 'bearer', body: RenamePasskeySchema,
    ok: { status: 200, schema: PasskeyJson, description: 'Renamed' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'MFA_REQUIRED', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/users/me/passkeys/{id}', summary: 'Remove a passkey', auth: 'bearer',
    ok: { status: 204, description: 'Removed; it signs in no more' }, errors: ['NOT_FOUND', 'MFA_REQUIRED', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/users/me/identities', summary: "The signed-in user's external identities, oldest link first", auth: 'bearer',
    ok: { status: 200, schema: z.array(IdentityJson), description: 'Identities' }, errors: BEARER,
  },
  {
    method: 'post', path: '/api/v1/users/me/identities/{provider}/id-token', summary: "Link the identity of a platform SDK's ID token", auth: 'bearer', body: IdTokenSchema,
    ok: { status: 201, schema: IdentityJson, description: 'Linked' },
    errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'INVALID_CREDENTIALS', 'IDENTITY_ALREADY_LINKED', 'MFA_REQUIRED', 'IDENTITY_PROVIDER_ERROR', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/users/me/identities/{provider}/authorize', summary: 'Start linking an identity through a web flow', auth: 'bearer',
    query: [{ name: 'returnTo', description: 'One of OIDC_RETURN_URLS, exactly', schema: { type: 'string', maxLength: 2048 } }],
    ok: { status: 302, description: 'To the provider (with Accept: application/json, 200 { url } instead)' },
    errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'MFA_REQUIRED', 'IDENTITY_PROVIDER_ERROR', 'RATE_LIMITED', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/users/me/identities/exchange', summary: "Link the identity of a link flow's one-time result", auth: 'bearer', body: ResultSchema,
    ok: { status: 201, schema: IdentityJson, description: 'Linked' },
    errors: ['VALIDATION_FAILED', 'INVALID_CREDENTIALS', 'IDENTITY_ALREADY_LINKED', 'MFA_REQUIRED', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/users/me/identities/{provider}', summary: "Unlink the account's identity at a provider (always allowed)", auth: 'bearer',
    ok: { status: 204, description: 'Unlinked' }, errors: ['NOT_FOUND', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/avatars/{key}', summary: 'An avatar image (immutable; ETag)', auth: 'none',
    ok: { status: 200, content: 'image/webp', description: 'WebP image' }, errors: ['NOT_FOUND'],
  },
  {
    method: 'get', path: '/api/v1/admin/users', summary: 'Find accounts by id, phone or nickname, newest first (SUPPORT or ADMIN)', auth: 'bearer',
    query: [
      { name: 'query', description: 'An id; a phone in E.164 or national form, or its leading digits; or a nickname substring (any case). Absent: every account', schema: { type: 'string', maxLength: 100 } },
      { name: 'status', description: 'Only active or only blocked accounts', schema: { type: 'string', enum: ['ACTIVE', 'BLOCKED'] } },
      { name: 'role', description: 'Only accounts with this role', schema: { type: 'string', enum: ['USER', 'SUPPORT', 'ADMIN'] } },
      ...PAGE('Accounts'),
    ],
    ok: { status: 200, schema: AdminUserListJson, description: 'A page of accounts' }, errors: ['VALIDATION_FAILED', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/admin/users/{id}', summary: 'One account, as operators see it (SUPPORT or ADMIN; audited as USER_VIEWED)', auth: 'bearer',
    ok: { status: 200, schema: AdminUserJson, description: 'The account' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'delete', path: '/api/v1/admin/users/{id}', summary: "Delete another account, as its owner's deletion does (ADMIN)", auth: 'bearer',
    ok: { status: 204, description: 'Deleted; its tokens stop at once' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/admin/users/{id}/sessions', summary: 'Live sessions of an account, newest first (SUPPORT or ADMIN; audited as USER_VIEWED)', auth: 'bearer',
    ok: { status: 200, schema: z.array(SessionJson), description: 'Sessions (current is always false)' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/admin/users/{id}/security-events', summary: "An account's security events, newest first (SUPPORT or ADMIN; audited as USER_VIEWED)", auth: 'bearer',
    query: PAGE('Events'),
    ok: { status: 200, schema: SecurityEventListJson, description: 'A page of events' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/admin/users/{id}/sessions/revoke', summary: "End every session of an account (SUPPORT for a USER's, ADMIN for anyone's)", auth: 'bearer',
    ok: { status: 204, description: 'Ended; its access tokens stop at their next request' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/admin/users/{id}/block', summary: 'Block an account and end its sessions (ADMIN)', auth: 'bearer', body: BlockUserSchema,
    ok: { status: 200, schema: AdminUserJson, description: 'The blocked account' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/admin/users/{id}/phone',
    summary: "Start a change of another account's phone number (ADMIN; never one's own): it always waits PHONE_RECOVERY_DELAY_HOURS, told to the account, which may cancel it (audited as PHONE_CHANGE_REQUESTED, and PHONE_CHANGED when it applies)",
    auth: 'bearer', body: ChangePhoneSchema,
    ok: { status: 201, schema: PhoneChangeJson, description: 'WAITING, with appliesAt' },
    errors: ['VALIDATION_FAILED', 'INVALID_PHONE', 'NOT_FOUND', 'FORBIDDEN', 'ACCOUNT_BLOCKED', 'PHONE_TAKEN', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'SMS_DELIVERY_FAILED', ...BEARER],
  },
  {
    method: 'put', path: '/api/v1/admin/users/{id}/role', summary: "Give another account a role (ADMIN; never one's own)", auth: 'bearer', body: SetRoleSchema,
    ok: { status: 200, schema: AdminUserJson, description: 'The account with its new role' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/admin/users/{id}/unblock', summary: 'Lift the block of an account (ADMIN)', auth: 'bearer',
    ok: { status: 200, schema: AdminUserJson, description: 'The account, active again' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/admin/audit-log', summary: 'The audit log of operator actions, newest first (ADMIN)', auth: 'bearer',
    query: PAGE('Entries'),
    ok: { status: 200, schema: AuditLogJson, description: 'A page of entries' }, errors: ['VALIDATION_FAILED', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'get', path: '/api/v1/admin/webhook-deliveries', summary: 'Webhook deliveries, newest first (ADMIN)', auth: 'bearer',
    query: [
      { name: 'status', description: 'Only deliveries with this status', schema: { type: 'string', enum: ['PENDING', 'DELIVERED', 'DEAD'] } },
      ...PAGE('Deliveries'),
    ],
    ok: { status: 200, schema: WebhookDeliveryListJson, description: 'A page of deliveries' }, errors: ['VALIDATION_FAILED', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/admin/webhook-deliveries/{id}/retry', summary: 'Send a delivery once more, due now (ADMIN; audited as WEBHOOK_RETRIED)', auth: 'bearer',
    ok: { status: 200, schema: WebhookDeliveryJson, description: 'The delivery, PENDING' }, errors: ['VALIDATION_FAILED', 'NOT_FOUND', 'FORBIDDEN', ...BEARER],
  },
  {
    method: 'post', path: '/api/v1/internal/meeting-usage', summary: 'Meeting usage report (service to service; off without INTERNAL_API_KEY)', auth: 'internal', body: MeetingUsageSchema,
    ok: { status: 204, description: 'Recorded (a retried report counts once)' }, errors: ['VALIDATION_FAILED', 'UNAUTHENTICATED', 'NOT_FOUND'],
  },
];

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });

/** Builds the OpenAPI 3.1 document from the route list and the zod schemas the routes use. */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const responses: Record<string, unknown> = {
      [op.ok.status]: {
        description: op.ok.description,
        ...(op.ok.schema && { content: { 'application/json': { schema: jsonSchema(op.ok.schema) } } }),
        ...(op.ok.content && { content: { [op.ok.content]: { schema: { type: 'string', format: 'binary' } } } }),
      },
    };
    // A request body that does not arrive within the server's request timeout is answered 408; one
    // its parser refuses, 413 past its limits or 415 in a charset or coding it does not read; more
    // than 1,000 query parameters, 413 (shared/http/parser-errors.ts).
    const bodyCodes: ErrorCode[] = op.body || op.upload || op.form ? ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'REQUEST_TIMEOUT'] : [];
    const queryCodes: ErrorCode[] = op.query ? ['PAYLOAD_TOO_LARGE'] : [];
    for (const code of [...new Set([...op.errors, ...bodyCodes, ...queryCodes, ...ALWAYS])]) {
      const { status, title } = describeCode(code);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}; ${code}` : `${title}: ${code}`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      };
    }
    const parameters = [
      ...[...op.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(op.query ?? []).map(({ name, description, schema }) => ({ name, in: 'query', required: false, description, schema })),
    ];
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      summary: op.summary,
      operationId: `${op.method}${op.path.replace(/[^a-zA-Z0-9]+(\w)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(parameters.length > 0 && { parameters }),
      ...(op.auth === 'bearer' && { security: [{ bearer: [] }] }),
      ...(op.auth === 'bearer-or-body' && { security: [{ bearer: [] }, {}] }),
      ...(op.auth === 'internal' && { security: [{ internalKey: [] }] }),
      ...(op.body && { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } }),
      ...(op.upload && {
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } },
            },
          },
        },
      }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'meeting-accounts',
      version,
      description:
        'Account and authentication service. The same operations are served over GraphQL at POST /graphql. ' +
        'A path below asked with a method it does not list answers 405 METHOD_NOT_ALLOWED, with the methods it serves in Allow. ' +
        'A request whose headers or body do not arrive within the server\'s timeouts answers 408 REQUEST_TIMEOUT (Connection: close).',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Problem: jsonSchema(Problem) },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        internalKey: { type: 'apiKey', in: 'header', name: 'X-Internal-Key' },
      },
    },
  };
}
