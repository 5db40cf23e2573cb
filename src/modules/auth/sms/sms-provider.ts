import type { Locale } from '../../../shared/i18n/locale.js';
import type { CodePurpose } from '../code-purpose.js';

/** What an SMS is for: a code of a purpose, or the notice of a phone change to the account's number. */
export type SmsPurpose = CodePurpose | typeof PHONE_CHANGE_NOTICE;

export const PHONE_CHANGE_NOTICE = 'phone-change-notice';

/** A phone change told to the account's (old) number: asked for (it applies at `appliesAt` unless cancelled), or done. */
export type PhoneChangeNotice = { kind: 'requested'; newPhone: string; appliesAt: Date } | { kind: 'changed'; newPhone: string };

export interface SmsMessage {
  phone: string;
  /** Empty for a notice. */
  code: string;
  purpose: SmsPurpose;
  ttlSeconds: number;
  /** The language to write it in: the account's, the request's, the phone region's, or the default (API.md 10.3). */
  locale: Locale;
  /** With purpose `phone-change-notice`. */
  notice?: PhoneChangeNotice;
}

/** Delivers verification codes. Real providers implement this; `send` rejects when delivery failed. */
export interface SmsProvider {
  readonly name: string;
  /** Where codes end up, for the start-up summary. */
  readonly destination: string;
  /** Rejects with an SmsDeliveryError saying whether the message surely did not go out. */
  send(message: SmsMessage): Promise<void>;
}

/**
 * A message the provider did not accept. `definite`: it surely did not go out (the provider answered
 * with an error status, or no connection could be made), so the send may be given back to the
 * limits; otherwise (no answer in time, a connection lost after the request was written) it may
 * have gone out, and counts as sent.
 */
export class SmsDeliveryError extends Error {
  readonly definite: boolean;

  constructor(message: string, options: { definite: boolean; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.name = 'SmsDeliveryError';
    this.definite = options.definite;
  }
}

/**
 * Whether a failed send surely sent nothing. Anything but an SmsDeliveryError marked definite (a
 * provider's bug included) may have sent the SMS: counting one send too many costs a user a retry,
 * giving back one that went out lets an attacker send without limit.
 */
export function surelyNotSent(error: unknown): boolean {
  return error instanceof SmsDeliveryError && error.definite;
}
