import { randomInt } from 'node:crypto';
import { sha256Hex } from '../../shared/tokens/secrets.js';

/** Lower-case letters and digits without the look-alikes 0/o, 1/l/i: 31 symbols, ~4.95 bits each. */
const ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const LENGTH = 10;
const RECOVERY_CODE_COUNT = 10;
const FORM = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);

/** A fresh set, shown once: `abcde-fghij`, ~49 random bits each. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const symbols = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${symbols.slice(0, 5)}-${symbols.slice(5)}`;
  });
}

/**
 * The stored form of a recovery code as typed: spaces and hyphens dropped, case folded; undefined
 * when it cannot be one. The codes are random and long, so a plain SHA-256 stores them safely.
 */
export function recoveryCodeHash(typed: string): string | undefined {
  const normalised = typed.replace(/[\s-]/g, '').toLowerCase();
  return FORM.test(normalised) ? sha256Hex(normalised) : undefined;
}
