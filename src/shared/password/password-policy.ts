import { dictionary } from '@zxcvbn-ts/language-common';
import { AppError, ErrorCode } from '../errors/app-error.js';
import type { Phone } from '../phone.js';

const COMMON = new Set((dictionary['passwords-common'] as string[]).map((p) => p.toLowerCase()));

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_BYTES = 72;

/**
 * NIST SP 800-63B style policy: length and a blocklist, no composition rules.
 * 72 bytes is bcrypt's input limit; longer passwords would be silently truncated.
 */
export function assertPasswordPolicy(password: string, phone?: Phone, field = 'password'): void {
  const weak = (reason: string) => {
    throw new AppError(ErrorCode.WEAK_PASSWORD, `The password ${reason}`, { fields: { [field]: reason } });
  };
  if ([...password].length < PASSWORD_MIN_LENGTH) weak(`must be at least ${PASSWORD_MIN_LENGTH} characters`);
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) weak(`must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`);
  if (COMMON.has(password.toLowerCase())) weak('is too common');
  if (phone) {
    const digits = password.replace(/[\s\-+().]/g, '');
    const phoneDigits = phone.e164.slice(1);
    if (digits === phone.national || digits === phoneDigits || digits === `0${phone.national}`) {
      weak('must not be the phone number');
    }
  }
}
