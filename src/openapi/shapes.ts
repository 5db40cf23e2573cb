import { z } from 'zod';
import { SecurityEventType, SignInMethod } from '../modules/security-event/security-event-type.js';
import { Role } from '../modules/account/role.js';
import { AuditAction } from '../modules/audit/audit-action.js';
import { WebhookDeliveryStatus } from '../modules/webhook/webhook-delivery-status.js';
import { LoginMethod } from '../modules/public-config/login-method.js';
import { MfaMethod } from '../modules/mfa/mfa-method.js';
import type { ErrorCode } from '../shared/errors/app-error.js';
import { LOCALES } from '../shared/i18n/locale.js';
import { ERROR_CODES, explain } from '../shared/errors/catalogue.js';

// The JSON bodies of REST responses. The mappers that write them are typed by these schemas, and
// the OpenAPI document is generated from them, so the two cannot drift apart.

const timestamp = z.iso.datetime();

export const UserJson = z
  .object({
    id: z.uuid(),
    phone: z.string().describe('E.164'),
    nickname: z.string(),
    avatarUrl: z.string().nullable().describe('Absolute path under /api/v1/avatars/; changes when the avatar changes'),
    hasPassword: z.boolean(),
    role: z.enum(Role).describe('USER, or SUPPORT or ADMIN for operators'),
    locale: z.enum(LOCALES).nullable().describe('The language the account chose for its SMS (zh-CN or en); null until chosen: the request\'s Accept-Language, then the phone\'s region, decide'),
    createdAt: timestamp,
    lastLoginAt: timestamp.nullable(),
  });
export type UserJson = z.infer<typeof UserJson>;

export const IdentityJson = z.object({
  provider: z.string().describe("The provider's id (IDENTITY_PROVIDERS)"),
  email: z.string().nullable().describe("The provider's email of the identity, shown only: nothing links or signs in by it"),
  name: z.string().nullable().describe("The provider's name of the identity"),
  linkedAt: timestamp,
  lastUsedAt: timestamp.nullable().describe('The last sign-in with it; null before the first'),
});
export type IdentityJson = z.infer<typeof IdentityJson>;

export const PhoneChangeJson = z.object({
  id: z.string(),
  phone: z.string().describe('The new number, E.164'),
  status: z.enum(['PENDING', 'WAITING', 'APPLIED', 'CANCELLED']),
  newPhoneProven: z.boolean().describe('Whether the code sent to the new number was given'),
  accountProven: z.boolean().describe('Whether the account was proven within the last 10 minutes (or, for APPLIED, was)'),
  appliesAt: timestamp.nullable().describe('For WAITING: when it applies unless cancelled'),
  createdAt: timestamp,
});
export type PhoneChangeJson = z.infer<typeof PhoneChangeJson>;

export const AdminUserJson = UserJson.extend({
  status: z.enum(['ACTIVE', 'BLOCKED']),
  blockedAt: timestamp.nullable(),
  blockedReason: z.string().nullable().describe("The operator's reason, while blocked"),
  activeSessions: z.int().describe('Live sessions'),
  mfaEnabled: z.boolean().describe('Whether TOTP is on (the secret and recovery codes are never shown)'),
  passkeys: z.int().describe('Passkeys registered'),
  identities: z.array(IdentityJson).describe("The external providers' identities linked to the account"),
  pendingPhoneChange: PhoneChangeJson.nullable().describe("The account's change of phone number that is being proven or waits (an operator's included), if any"),
});
export type AdminUserJson = z.infer<typeof AdminUserJson>;

export const AuthPayloadJson = z
  .object({
    accessToken: z.string().describe('JWT for Authorization: Bearer'),
    tokenType: z.literal('Bearer'),
    expiresIn: z.int().describe('Seconds until the access token expires'),
    refreshToken: z.string().describe('Opaque, single use'),
    refreshExpiresIn: z.int(),
    isNewUser: z.boolean().describe('True only when this call created the account'),
    user: UserJson,
  });
export type AuthPayloadJson = z.infer<typeof AuthPayloadJson>;

export const SendCodeResultJson = z
  .object({ expiresIn: z.int(), resendAfter: z.int() });

export const PublicConfigJson = z
  .object({
    registrationEnabled: z.boolean(),
    about: z.object({
      appName: z.string(),
      version: z.string(),
      description: z.string(),
      website: z.string(),
      termsUrl: z.string(),
      privacyUrl: z.string(),
      contactEmail: z.string(),
    }),
    helpCenter: z.object({
      url: z.string(),
      supportEmail: z.string(),
      supportPhone: z.string(),
      faqs: z.array(z.object({ question: z.string(), answer: z.string() })),
    }),
    auth: z.object({
      codeLength: z.int(),
      codeTtlSeconds: z.int(),
      resendIntervalSeconds: z.int(),
      passwordMinLength: z.int(),
      passwordMaxBytes: z.int(),
      loginMethods: z.array(z.enum(LoginMethod)),
    }),
    avatar: z.object({ maxBytes: z.int(), acceptedTypes: z.array(z.string()) }),
    identityProviders: z.array(z.object({ id: z.string(), name: z.string() })).describe('The external OpenID Connect providers to offer, in order'),
  });
export type PublicConfigJson = z.infer<typeof PublicConfigJson>;

export const UserStatsJson = z
  .object({
    loginCount: z.int(),
    lastLoginAt: timestamp.nullable(),
    memberSince: timestamp,
    daysSinceRegistration: z.int(),
    activeSessions: z.int(),
    meetingsHosted: z.int(),
    meetingsJoined: z.int(),
    totalMeetingMinutes: z.int(),
    hostedMeetingMinutes: z.int(),
    averageMeetingMinutes: z.number(),
    lastMeetingAt: timestamp.nullable(),
    last30Days: z.object({ meetings: z.int(), minutes: z.int() }),
  });
export type UserStatsJson = z.infer<typeof UserStatsJson>;

export const SessionJson = z
  .object({
    id: z.uuid(),
    createdAt: timestamp,
    lastUsedAt: timestamp,
    userAgent: z.string().nullable(),
    ip: z.string().nullable(),
    current: z.boolean(),
  });
export type SessionJson = z.infer<typeof SessionJson>;

const SecurityEventJson = z.object({
  id: z.string().describe('Increasing with time'),
  type: z.enum(SecurityEventType),
  method: z.enum(SignInMethod).nullable().describe('On sign-ins'),
  provider: z.string().nullable().describe("The external identity provider's id: on OIDC sign-ins, IDENTITY_LINKED and IDENTITY_UNLINKED"),
  at: timestamp,
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  sessionId: z.uuid().nullable().describe('The session the event is about: the one created, ended, or acting'),
  phoneMasked: z.string().nullable().describe('E.164 with all digits but the last four masked'),
});

export const SecurityEventListJson = z.object({
  items: z.array(SecurityEventJson).describe('Newest first'),
  nextCursor: z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page'),
});
export type SecurityEventListJson = z.infer<typeof SecurityEventListJson>;

const nextCursor = z.string().nullable().describe('Pass as ?cursor= for the next page; null on the last page');

export const AdminUserListJson = z.object({ items: z.array(AdminUserJson).describe('Newest first'), nextCursor });
export type AdminUserListJson = z.infer<typeof AdminUserListJson>;

const AuditEntryJson = z.object({
  id: z.string().describe('Increasing with time'),
  at: timestamp,
  actorId: z.uuid().nullable().describe("The operator's account; null for the command-line tool (npm run admin)"),
  action: z.enum(AuditAction),
  targetUserId: z.uuid().nullable().describe('The account acted on'),
  detail: z
    .record(z.string(), z.unknown())
    .describe("The action's own fields (a block's reason, a role change's from and to, what was read) and where the operator acted from (ip, userAgent, requestId)"),
});

export const AuditLogJson = z.object({ items: z.array(AuditEntryJson).describe('Newest first'), nextCursor });
export type AuditLogJson = z.infer<typeof AuditLogJson>;

export const WebhookDeliveryJson = z.object({
  id: z.uuid().describe('The webhook-id header the receiver sees, the same on every try'),
  eventType: z.string().describe('user.created, user.updated, user.deleted, user.blocked, user.unblocked, session.created or session.revoked'),
  url: z.string().describe('The receiver, with any credentials in it redacted'),
  status: z.enum(WebhookDeliveryStatus),
  attempts: z.int().describe('Tries made'),
  lastStatus: z.int().nullable().describe("The last try's HTTP status; null when it got no answer"),
  lastError: z.string().nullable().describe('Why the last try failed'),
  nextAttemptAt: timestamp.describe('When a PENDING delivery is next tried (once the events of its user before it are delivered)'),
  createdAt: timestamp,
  deliveredAt: timestamp.nullable(),
});
export type WebhookDeliveryJson = z.infer<typeof WebhookDeliveryJson>;

export const WebhookDeliveryListJson = z.object({ items: z.array(WebhookDeliveryJson).describe('Newest first'), nextCursor });
export type WebhookDeliveryListJson = z.infer<typeof WebhookDeliveryListJson>;

export const MfaStatusJson = z.object({
  totp: z.boolean().describe('Whether TOTP is on (confirmed)'),
  recoveryCodesLeft: z.int().describe('Recovery codes not used yet'),
  passkeys: z.int().describe('Registered passkeys'),
});
export type MfaStatusJson = z.infer<typeof MfaStatusJson>;

export const TotpEnrollmentJson = z.object({
  secret: z.string().describe('The secret in base32, for typing into an authenticator app'),
  otpauthUri: z.string().describe('otpauth://totp/ URI (SHA1, 6 digits, 30 s)'),
  qrCodeSvg: z.string().describe('The otpauth URI as a QR code (SVG document)'),
});
export type TotpEnrollmentJson = z.infer<typeof TotpEnrollmentJson>;

export const RecoveryCodesJson = z.object({
  recoveryCodes: z.array(z.string()).describe('10 single-use codes (abcde-fghij), shown this once; spaces, hyphens and case do not matter when one is typed'),
});
export type RecoveryCodesJson = z.infer<typeof RecoveryCodesJson>;

export const PasskeyJson = z.object({
  id: z.uuid(),
  name: z.string().describe('Trimmed, 1-64 characters; "Passkey <date added>" until renamed'),
  createdAt: timestamp,
  lastUsedAt: timestamp.nullable().describe('The last sign-in with it; null before the first'),
  backedUp: z.boolean().describe('Whether the authenticator says the key is backed up (synced to other devices)'),
});
export type PasskeyJson = z.infer<typeof PasskeyJson>;

const credentialDescriptor = z.object({ id: z.string().describe('base64url'), type: z.literal('public-key'), transports: z.array(z.string()).optional() });

export const PasskeyRegistrationOptionsJson = z
  .looseObject({
    challenge: z.string().describe('base64url; single use, valid 5 minutes'),
    rp: z.object({ id: z.string(), name: z.string() }),
    user: z.object({ id: z.string().describe('base64url of the account id (16 bytes)'), name: z.string().describe('The phone, E.164'), displayName: z.string() }),
    pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.int() })),
    timeout: z.int().optional(),
    excludeCredentials: z.array(credentialDescriptor).optional().describe("The account's passkeys"),
    authenticatorSelection: z.record(z.string(), z.unknown()).optional(),
    attestation: z.string().optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3) for navigator.credentials.create(); a discoverable credential is required');

export const PasskeyLoginOptionsJson = z.object({
  challengeId: z.uuid().describe('Single use, valid 5 minutes: send it back with the response'),
  options: z
    .looseObject({
      challenge: z.string().describe('base64url'),
      rpId: z.string(),
      allowCredentials: z.array(credentialDescriptor).describe('Empty: any passkey of this service'),
      userVerification: z.string(),
      timeout: z.int().optional(),
    })
    .describe('PublicKeyCredentialRequestOptionsJSON for navigator.credentials.get()'),
});

export const HealthJson = z.object({ status: z.literal('ok') });

export const JwksJson = z
  .object({
    keys: z.array(
      z.object({
        kty: z.enum(['EC', 'OKP']),
        crv: z.enum(['P-256', 'Ed25519']),
        x: z.string(),
        y: z.string().optional().describe('EC keys only'),
        kid: z.string(),
        alg: z.enum(['ES256', 'EdDSA']),
        use: z.literal('sig'),
      }),
    ),
  })
  .describe('RFC 7517 JWK set: the public keys that may verify a live access token (empty with HS256)');

export const Problem = z
  .object({
    type: z.string(),
    title: z.string().describe("The code's title, in the request's language (Accept-Language: zh-CN or en, else DEFAULT_LOCALE; the Content-Language header names it)"),
    status: z.int(),
    code: z
      .enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]])
      .describe(`The error code (GraphQL: \`extensions.code\`, enum ErrorCode); each code's status and the members it carries besides these:\n${ERROR_CODES.map((code) => `- \`${code}\`: ${explain(code)}`).join('\n')}`),
    detail: z.string().describe('What went wrong, in the language of `title`'),
    requestId: z.uuid(),
    fields: z.record(z.string(), z.string()).optional().describe('Per-field messages, on validation errors, in the language of `title` where the service has them in it'),
    retryAfter: z.int().optional().describe('Seconds, on RATE_LIMITED (also in the Retry-After header)'),
    reason: z
      .enum(['missing', 'invalid', 'expired', 'session_ended'])
      .optional()
      .describe('On UNAUTHENTICATED: `missing` (no token), `invalid` (malformed, bad signature, unknown), `expired` (an access token past its expiry: refresh and retry), `session_ended` (sign in again)'),
    mfaToken: z.string().optional().describe('On MFA_REQUIRED (a sign-in, or a change that needs a recent second factor): single use, 5 minutes; finish with POST /api/v1/auth/mfa/verify'),
    mfaMethods: z.array(z.enum(MfaMethod)).optional().describe('On MFA_REQUIRED: the codes the mfaToken takes'),
  })
  .describe('RFC 9457 problem document');
