/** What happened to the signed-in account (see accountEvents) */
export type AccountEventType =
  | 'ACCOUNT_BLOCKED'
  | 'IDENTITY_LINKED'
  | 'IDENTITY_UNLINKED'
  | 'MFA_CHANGED'
  | 'NEW_SIGN_IN'
  | 'PHONE_CHANGED'
  | 'PHONE_CHANGE_REQUESTED'
  | 'PROFILE_UPDATED'
  | 'ROLE_CHANGED'
  | 'SESSION_REVOKED'
  | 'SIGNED_OUT_EVERYWHERE';

/** Whether an operator has blocked the account */
export type AccountStatus =
  | 'ACTIVE'
  | 'BLOCKED';

/** What an operator did */
export type AuditAction =
  | 'PHONE_CHANGED'
  | 'PHONE_CHANGE_REQUESTED'
  | 'ROLE_CHANGED'
  | 'SESSIONS_REVOKED'
  | 'USER_BLOCKED'
  | 'USER_DELETED'
  | 'USER_UNBLOCKED'
  | 'USER_VIEWED'
  | 'WEBHOOK_RETRIED';

/** What a verification code may be used for */
export type CodePurpose =
  | 'DELETE_ACCOUNT'
  | 'LOGIN'
  | 'REGISTER'
  | 'RESET_PASSWORD';

/** `extensions.code` of a GraphQL error: the error catalogue (REST's problem `code`). Each value says its HTTP status and the members `extensions` carries besides `code` and `requestId`. Codes are added, never renamed: treat one you do not know by its HTTP status. */
export type ErrorCode =
  /** HTTP 403, Account blocked. No other members. */
  | 'ACCOUNT_BLOCKED'
  /** HTTP 403, Forbidden. No other members. The account's role does not allow the operation. */
  | 'FORBIDDEN'
  /** HTTP 409, Identity already linked. No other members. */
  | 'IDENTITY_ALREADY_LINKED'
  /** HTTP 502, Identity provider error. No other members. */
  | 'IDENTITY_PROVIDER_ERROR'
  /** HTTP 500, Internal server error. No other members. The message is a fixed sentence: quote `requestId` when reporting it. */
  | 'INTERNAL'
  /** HTTP 400, Invalid verification code. No other members. The code (SMS, TOTP or recovery) is wrong, expired or used, or the mfaToken is unknown. */
  | 'INVALID_CODE'
  /** HTTP 401, Invalid credentials. No other members. */
  | 'INVALID_CREDENTIALS'
  /** HTTP 422, Invalid image. No other members. */
  | 'INVALID_IMAGE'
  /** HTTP 400, Invalid phone number. `fields`: `{ phone }`, why the number is refused (not a mobile number, or a region not served). */
  | 'INVALID_PHONE'
  /** HTTP 405, Method not allowed. No other members. The Allow header lists the methods the path serves. */
  | 'METHOD_NOT_ALLOWED'
  /** HTTP 409, Second factor already enabled. No other members. */
  | 'MFA_ALREADY_ENABLED'
  /** HTTP 401, Second factor required. `mfaToken` (string, single use, 5 minutes): finish with verifyMfa (POST /api/v1/auth/mfa/verify); `mfaMethods` (array of MfaMethod values: `totp`, `recovery`): the codes it takes. */
  | 'MFA_REQUIRED'
  /** HTTP 404, Not found. No other members. */
  | 'NOT_FOUND'
  /** HTTP 413, Payload too large. No other members. */
  | 'PAYLOAD_TOO_LARGE'
  /** HTTP 400, Persisted query not found. No other members. GraphQL only: the document's hash is not known yet; send it again with the document (automatic persisted queries). */
  | 'PERSISTED_QUERY_NOT_FOUND'
  /** HTTP 409, Phone already registered. No other members. */
  | 'PHONE_ALREADY_REGISTERED'
  /** HTTP 409, Phone taken. No other members. A phone change's new number belongs to another account; told only once the new number was proven with its code. */
  | 'PHONE_TAKEN'
  /** HTTP 401, Phone verification required. `linkToken` (string, 10 minutes): finish with linkExternalIdentity (POST /api/v1/auth/oidc/link) and an SMS login code of the phone; `identity` (`{ provider, email, name }`, email and name may be null): the external identity to link, as its provider describes it. */
  | 'PHONE_VERIFICATION_REQUIRED'
  /** HTTP 429, Too many requests. `retryAfter` (integer seconds, at least 1): when a retry may pass; also the Retry-After header. */
  | 'RATE_LIMITED'
  /** HTTP 403, Registration disabled. No other members. */
  | 'REGISTRATION_DISABLED'
  /** HTTP 408, Request timeout. No other members. The connection is closed. */
  | 'REQUEST_TIMEOUT'
  /** HTTP 401, Second proof required. `proofToken` (string, single use, 5 minutes): finish with completeSecondProof (POST /api/v1/auth/second-proof) and one of the account's password, a TOTP code or a recovery code; `methods` (array of `password`, `totp`, `recovery`, `passkey`, `identity`): what the account has (`passkey` and `identity`: sign in with the passkey, or through the linked provider, instead). A sign-in by SMS code to a dormant account. */
  | 'SECOND_PROOF_REQUIRED'
  /** HTTP 503, Service unavailable. `retryAfter` (integer seconds, also the Retry-After header) when the service paused the operation on purpose (SMS to a region); none when a store it needs is unreachable. */
  | 'SERVICE_UNAVAILABLE'
  /** HTTP 502, SMS delivery failed. No other members. */
  | 'SMS_DELIVERY_FAILED'
  /** HTTP 401, Authentication required. `reason`: `missing` (no token), `invalid` (malformed, a bad signature or unknown; a refresh token unknown, expired or used), `expired` (an access token past its expiry: refresh, then retry) or `session_ended` (its session was logged out, revoked, or its account blocked or deleted: sign in again). REST adds a WWW-Authenticate header. */
  | 'UNAUTHENTICATED'
  /** HTTP 415, Unsupported media type. No other members. */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** HTTP 400, Validation failed. `fields` (object, when the refusal names fields): each field at fault, by its name in the REST body or the GraphQL input (`phone`, `newPassword`; `(body)` for a REST body that is not JSON) -> what is wrong with it. */
  | 'VALIDATION_FAILED'
  /** HTTP 400, Password too weak. `fields`: `{ password }` or `{ newPassword }`, what the password lacks. */
  | 'WEAK_PASSWORD';

/** A way a sign-in page may offer (the values REST sends too) */
export type LoginMethod =
  /** The phone number and the password: loginWithPassword */
  | 'password'
  /** A code sent by SMS to the phone: sendCode, then login */
  | 'sms_code';

/** A code an mfaToken takes: the values of MFA_REQUIRED's `extensions.mfaMethods` (JSON, so not typed by the schema) */
export type MfaMethod =
  /** One of the single-use recovery codes (abcde-fghij) shown when TOTP was turned on */
  | 'recovery'
  /** A 6-digit code of the authenticator app (TOTP) */
  | 'totp';

/** Where a change of the phone number stands */
export type PhoneChangeStatus =
  /** Done: the account has the new number */
  | 'APPLIED'
  /** Cancelled, replaced, or refused when it was to apply */
  | 'CANCELLED'
  /** Started: waiting for its proofs (the new phone, the account) */
  | 'PENDING'
  /** The new phone proven without an account proof: applies at appliesAt unless cancelled */
  | 'WAITING';

/** What an account may do beyond its own data */
export type Role =
  | 'ADMIN'
  | 'SUPPORT'
  | 'USER';

/** What happened to the account */
export type SecurityEventType =
  | 'ACCOUNT_BLOCKED'
  | 'ACCOUNT_DELETED'
  | 'ACCOUNT_UNBLOCKED'
  | 'ACCOUNT_VIEWED_BY_OPERATOR'
  | 'AVATAR_CHANGED'
  | 'CODE_SENT'
  | 'IDENTITY_LINKED'
  | 'IDENTITY_UNLINKED'
  | 'LOGOUT'
  | 'MFA_DISABLED'
  | 'MFA_ENABLED'
  | 'MFA_FAILED'
  | 'PASSKEY_ADDED'
  | 'PASSKEY_REMOVED'
  | 'PASSWORD_CHANGED'
  | 'PASSWORD_RESET'
  | 'PHONE_CHANGED'
  | 'PHONE_CHANGE_CANCELLED'
  | 'PHONE_CHANGE_REQUESTED'
  | 'PROFILE_CHANGED'
  | 'RECOVERY_CODE_USED'
  | 'REFRESH_REUSE'
  | 'ROLE_CHANGED'
  | 'SESSIONS_REVOKED_BY_OPERATOR'
  | 'SESSION_REVOKED'
  | 'SIGN_IN'
  | 'SIGN_IN_FAILED';

/** How a sign-in was attempted */
export type SignInMethod =
  | 'CODE'
  | 'OIDC'
  | 'PASSKEY'
  | 'PASSWORD';

/** Where a webhook delivery stands */
export type WebhookDeliveryStatus =
  | 'DEAD'
  | 'DELIVERED'
  | 'PENDING';

export type Link__Purpose =
  /** `EXECUTION` features provide metadata necessary for operation execution. */
  | 'EXECUTION'
  /** `SECURITY` features provide metadata necessary to securely resolve fields. */
  | 'SECURITY';
