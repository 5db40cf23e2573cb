import { parsePhoneNumberFromString, type CountryCode, type MetadataJson } from 'libphonenumber-js/core';
import maxMetadata from 'libphonenumber-js/max/metadata';
import { AppError, ErrorCode } from './errors/app-error.js';

// Full metadata: it knows which number ranges are mobile, which the default `min` set does not.
const metadata = maxMetadata as unknown as MetadataJson;

export interface Phone {
  /** E.164, e.g. +8613800138000. */
  e164: string;
  /** National significant number, e.g. 13800138000. */
  national: string;
  /** ISO 3166-1 alpha-2 region of the number, e.g. CN. */
  country: string;
}

/**
 * Accepts E.164 or the national form of the default region and returns E.164.
 * Only numbers that are valid mobile numbers for their region pass (the `max` metadata knows the
 * number ranges; FIXED_LINE_OR_MOBILE is accepted where a region does not tell the two apart).
 */
export function parsePhone(input: string, defaultRegion: string): Phone {
  const parsed = parsePhoneNumberFromString(input.trim(), defaultRegion as CountryCode, metadata);
  const type = parsed?.getType();
  if (!parsed || !parsed.isValid() || !parsed.country || (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE')) {
    throw new AppError(ErrorCode.INVALID_PHONE, 'Not a valid mobile phone number', {
      fields: { phone: 'must be a mobile number in E.164 (+8613800138000) or national form' },
    });
  }
  return { e164: parsed.number, national: parsed.nationalNumber, country: parsed.country };
}

/** The region of an E.164 number already accepted by parsePhone. */
export function countryOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164, {}, metadata)?.country;
}
