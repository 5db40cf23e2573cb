import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError, ErrorCode, msg, type Message } from '../errors/app-error.js';
import type { Phone } from '../phone.js';

const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_BYTES = 72;

/**
 * The form in which a password is hashed and compared: NFKC, so that the same password typed on
 * another keyboard (full-width letters and digits, a no-break or ideographic space, an accent
 * composed or not) is the same password. Nothing else changes: a trailing space still counts.
 */
export function hashedPassword(password: string): string {
  return password.normalize('NFKC');
}

/**
 * The form in which the policy judges a password: format characters (zero-width spaces and joiners,
 * byte-order marks, direction marks, soft hyphens: \p{Cf}) removed, NFKC, and whitespace trimmed from
 * both ends, so that padding a common or short password with what cannot be seen does not pass.
 * Format characters go first: one between two characters would keep NFKC from composing them.
 */
export function judgedPassword(password: string): string {
  return password.replace(/\p{Cf}/gu, '').normalize('NFKC').trim();
}

/**
 * NIST SP 800-63B style policy: length and a blocklist, no composition rules, judged on the password
 * without invisible padding (judgedPassword). 72 bytes is bcrypt's input limit, counted on what is
 * hashed; longer passwords would be silently truncated.
 */
export function assertPasswordPolicy(password: string, phone?: Phone, field = 'password'): void {
  const weak = (reason: Message) => {
    throw new AppError(ErrorCode.WEAK_PASSWORD, msg('password.weak', { reason }), { fields: { [field]: reason } });
  };
  const judged = judgedPassword(password);
  if (judged === '') weak(msg('password.reason.blank'));
  if ([...judged].length < PASSWORD_MIN_LENGTH) weak(msg('password.reason.tooShort', { min: String(PASSWORD_MIN_LENGTH) }));
  if (Buffer.byteLength(hashedPassword(password), 'utf8') > PASSWORD_MAX_BYTES) weak(msg('password.reason.tooLong', { max: String(PASSWORD_MAX_BYTES) }));
  if (COMMON.has(judged.toLowerCase())) weak(msg('password.reason.common'));
  if (phone) {
    const digits = judged.replace(/[\s\-+().]/g, '');
    const phoneDigits = phone.e164.slice(1);
    if (digits === phone.national || digits === phoneDigits || digits === `0${phone.national}`) {
      weak(msg('password.reason.phone'));
    }
  }
}
