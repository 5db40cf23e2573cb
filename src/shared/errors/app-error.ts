/**
 * The closed catalogue of public error codes. Codes are API: add new ones, never rename one.
 */
import type { Locale } from '../i18n/locale.js';
import { msg, render, type Message } from '../i18n/messages.js';

export const ErrorCode = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  INVALID_PHONE: 'INVALID_PHONE',
  WEAK_PASSWORD: 'WEAK_PASSWORD',
  INVALID_CODE: 'INVALID_CODE',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  REGISTRATION_DISABLED: 'REGISTRATION_DISABLED',
  NOT_FOUND: 'NOT_FOUND',
  PHONE_ALREADY_REGISTERED: 'PHONE_ALREADY_REGISTERED',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  INVALID_IMAGE: 'INVALID_IMAGE',
  RATE_LIMITED: 'RATE_LIMITED',
  INTERNAL: 'INTERNAL',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  SMS_DELIVERY_FAILED: 'SMS_DELIVERY_FAILED',
  FORBIDDEN: 'FORBIDDEN',
  ACCOUNT_BLOCKED: 'ACCOUNT_BLOCKED',
  MFA_REQUIRED: 'MFA_REQUIRED',
  MFA_ALREADY_ENABLED: 'MFA_ALREADY_ENABLED',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  PHONE_VERIFICATION_REQUIRED: 'PHONE_VERIFICATION_REQUIRED',
  IDENTITY_ALREADY_LINKED: 'IDENTITY_ALREADY_LINKED',
  IDENTITY_PROVIDER_ERROR: 'IDENTITY_PROVIDER_ERROR',
  PERSISTED_QUERY_NOT_FOUND: 'PERSISTED_QUERY_NOT_FOUND',
  PHONE_TAKEN: 'PHONE_TAKEN',
  SECOND_PROOF_REQUIRED: 'SECOND_PROOF_REQUIRED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface AppErrorOptions {
  /** Per-field messages, for VALIDATION_FAILED (and INVALID_PHONE, WEAK_PASSWORD): a message of the catalogues, or a library's own words. */
  fields?: Record<string, Message | string>;
  /** Seconds until the caller may retry, for RATE_LIMITED (and SERVICE_UNAVAILABLE by policy). */
  retryAfter?: number;
  /**
   * A refusal the service chose (a spent budget, an open breaker) rather than a fault: its code may be
   * a server one (SERVICE_UNAVAILABLE), but it is logged where the decision is made, not per request.
   */
  byPolicy?: boolean;
  /**
   * Public members of the answer beyond the catalogue's (MFA_REQUIRED's `mfaToken` and `mfaMethods`):
   * top-level members of the problem document, GraphQL `extensions` members.
   */
  details?: Record<string, unknown>;
  /** For METHOD_NOT_ALLOWED: the methods the path serves, as the Allow header lists them (`GET, HEAD`). */
  allow?: string;
  cause?: unknown;
}

/**
 * The one exception type of the domain. Services throw it; each transport maps it once. It carries
 * its message by id (`what`), which the transport renders in the request's locale; `message` is the
 * English text, for logs.
 */
export class AppError extends Error {
  readonly what: Message;
  /** Per-field messages in English, for logs; `fieldMessages` are what the transports render. */
  readonly fields?: Record<string, string>;
  readonly fieldMessages?: Record<string, Message | string>;
  readonly retryAfter?: number;
  readonly byPolicy: boolean;
  readonly details?: Record<string, unknown>;
  readonly allow?: string;

  constructor(
    readonly code: ErrorCode,
    what: Message,
    options: AppErrorOptions = {},
  ) {
    super(render(what, 'en'), { cause: options.cause });
    this.name = 'AppError';
    this.what = what;
    this.fieldMessages = options.fields;
    this.fields = options.fields && renderFields(options.fields, 'en');
    this.retryAfter = options.retryAfter;
    this.byPolicy = options.byPolicy ?? false;
    this.details = options.details;
    this.allow = options.allow;
  }
}

/** Each field's message in `locale`; a library's own words are left as they are. */
export function renderFields(fields: Record<string, Message | string>, locale: Locale): Record<string, string> {
  const rendered: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) rendered[name] = typeof value === 'string' ? value : render(value, locale);
  return rendered;
}

/** Guard clause: throws `AppError(code, message)` unless the condition holds. */
export function assertThat(condition: unknown, code: ErrorCode, message: Message): asserts condition {
  if (!condition) throw new AppError(code, message);
}

export { msg, type Message };
