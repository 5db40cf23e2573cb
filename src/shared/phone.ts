import { Metadata, getCountryCallingCode, isSupportedCountry, parsePhoneNumberFromString, type CountryCode, type MetadataJson } from 'libphonenumber-js/core';
import maxMetadata from 'libphonenumber-js/max/metadata';
import { AppError, ErrorCode, msg } from './errors/app-error.js';

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
    throw new AppError(ErrorCode.INVALID_PHONE, msg('phone.invalid'), {
      fields: { phone: msg('phone.invalid.field') },
    });
  }
  return { e164: parsed.number, national: parsed.nationalNumber, country: parsed.country };
}

/** The region of an E.164 number already accepted by parsePhone. */
export function countryOf(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164, {}, metadata)?.country;
}

/**
 * The E.164 prefixes a search text can stand for, for the operators' search: a whole number in any
 * form parsePhone accepts, or the leading digits of one, written in E.164 (with or without the
 * `+`, or `00`) or in the national form of `defaultRegion` (with or without its trunk prefix).
 * Spaces, dashes, dots and brackets are ignored; anything else makes it no phone at all ([]).
 */
export function phonePrefixes(text: string, defaultRegion: string): string[] {
  const compact = text.trim().replace(/[\s\-.()]/g, '');
  if (!/^(\+|00)?\d+$/.test(compact)) return [];
  const prefixes = new Set<string>();
  try {
    prefixes.add(parsePhone(text, defaultRegion).e164);
  } catch {
    // not a whole mobile number: its leading digits, then
  }
  if (compact.startsWith('+')) prefixes.add(compact);
  else if (compact.startsWith('00')) prefixes.add(`+${compact.slice(2)}`);
  else {
    prefixes.add(`+${compact}`);
    if (isSupportedCountry(defaultRegion as CountryCode, metadata)) {
      const plan = new Metadata(metadata);
      plan.selectNumberingPlan(defaultRegion as CountryCode);
      // The trunk prefix ('0' in GB and CN, '1' in US): in the metadata, not in its typings.
      const trunk = (plan.numberingPlan as unknown as { nationalPrefix(): string | undefined } | undefined)?.nationalPrefix();
      const national = trunk && compact.startsWith(trunk) ? compact.slice(trunk.length) : compact;
      if (national) prefixes.add(`+${getCountryCallingCode(defaultRegion as CountryCode, metadata)}${national}`);
    }
  }
  // No E.164 number starts with 0, and a bare '+' (from '00' alone) would match every number; a
  // prefix that another one covers adds nothing to the search.
  const possible = [...prefixes].filter((p) => /^\+[1-9]/.test(p));
  return possible.filter((p) => !possible.some((other) => other !== p && p.startsWith(other)));
}
