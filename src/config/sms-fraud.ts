import { commaList } from './list.js';

/**
 * Region codes are checked against CLDR's names (Intl) rather than libphonenumber, whose import would
 * cost a bad configuration's report ~40 ms: a region with no phone numbers is harmless here anyway.
 */
const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
const isRegion = (code: string) => /^[A-Z]{2}$/.test(code) && code !== 'ZZ' && regionNames.of(code) !== undefined;

export interface SmsFraudConfig {
  /** Regions (ISO 3166-1 alpha-2) whose numbers get codes; `*`: every region. */
  allowedCountries: string[] | '*';
  /** E.164 prefixes (+8617...) whose numbers get no code. */
  blockedPrefixes: string[];
  /** SMS per region per UTC day; `*` for regions not named; a region in neither is unlimited. */
  dailyBudget: Record<string, number>;
  /** Below this share of codes used (over the last hour), sends to a region pause; 0: never. */
  minConversion: number;
  /** ...once the region had at least this many sends in that hour. */
  conversionMinSends: number;
  /** Distinct regions one address may ask codes for per day. */
  countriesPerIpDaily: number;
}

interface SmsFraudEnvironment {
  defaultRegion: string;
  allowedCountries?: string;
  blockedPrefixes: string;
  dailyBudget: string;
  minConversion: number;
  conversionMinSends: number;
  countriesPerIpDaily: number;
}


/** The SMS pumping settings as read from the environment; bad ones are added to `problems`. */
export function parseSmsFraud(e: SmsFraudEnvironment, problems: string[]): SmsFraudConfig {
  const allowed = commaList(e.allowedCountries ?? e.defaultRegion);
  const unknown = allowed.filter((code) => code !== '*' && !isRegion(code));
  if (unknown.length > 0 || allowed.length === 0) {
    problems.push(`SMS_ALLOWED_COUNTRIES: must be * or a comma-separated list of regions such as CN,HK${unknown.length > 0 ? ` (not regions: ${unknown.join(', ')})` : ''}`);
  }
  const blockedPrefixes = commaList(e.blockedPrefixes);
  const badPrefixes = blockedPrefixes.filter((p) => !/^\+\d{1,15}$/.test(p));
  if (badPrefixes.length > 0) problems.push(`SMS_BLOCKED_PREFIXES: must be E.164 prefixes such as +86170 (not: ${badPrefixes.join(', ')})`);
  const dailyBudget: Record<string, number> = {};
  for (const entry of commaList(e.dailyBudget)) {
    const match = /^([A-Z]{2}|\*)=(\d+)$/.exec(entry);
    if (!match || (match[1] !== '*' && !isRegion(match[1]!))) {
      problems.push(`SMS_DAILY_BUDGET_PER_COUNTRY: ${entry} is not REGION=COUNT (CN=100000, *=500)`);
      continue;
    }
    dailyBudget[match[1]!] = Number(match[2]);
  }
  return {
    allowedCountries: allowed.includes('*') ? '*' : allowed,
    blockedPrefixes,
    dailyBudget,
    minConversion: e.minConversion,
    conversionMinSends: e.conversionMinSends,
    countriesPerIpDaily: e.countriesPerIpDaily,
  };
}
