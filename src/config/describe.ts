import { z } from 'zod';

/**
 * The features the variables belong to, in the order docs/configuration.md lists them, each with the
 * guide (under docs/) that explains it.
 */
export const FEATURES = {
  service: { title: 'The service: listener, requests, logs, data directory', guide: 'production.md' },
  database: { title: 'Database and connection pooler', guide: 'production.md#behind-a-connection-pooler' },
  redis: { title: 'Counters in Redis', guide: 'production.md#running-in-production' },
  browsers: { title: 'Browsers (CORS)', guide: 'frontends.md' },
  tokens: { title: 'Token signing and keys', guide: 'production.md#tokens-for-other-services-jwks' },
  sessions: { title: 'Sessions and refresh tokens', guide: 'sign-in.md#sessions-and-refresh-tokens' },
  'sign-in': { title: 'Sign-in: codes, passwords, their limits', guide: 'sign-in.md' },
  sms: { title: 'SMS providers', guide: 'sms.md' },
  'sms-pumping': { title: 'SMS pumping defences', guide: 'sign-in.md#sms-pumping-defences' },
  'phone-changes': { title: 'Changing the phone number', guide: 'phone-changes.md' },
  'security-events': { title: 'Security events', guide: 'sign-in.md#security-events' },
  'second-factor': { title: 'Second factor (TOTP)', guide: 'second-factors.md#second-factor-totp' },
  passkeys: { title: 'Passkeys', guide: 'second-factors.md#passkeys' },
  'identity-providers': { title: 'External identity providers (OpenID Connect)', guide: 'identity-providers.md' },
  graph: { title: 'GraphQL: explorer and trusted documents', guide: 'graph.md' },
  'live-events': { title: 'Live account events (subscriptions)', guide: 'live-events.md' },
  operators: { title: 'Operators and the console', guide: 'operators.md' },
  webhooks: { title: 'Webhooks', guide: 'webhooks.md' },
  avatars: { title: 'Avatars and their storage', guide: 'decisions.md' },
  'usage-statistics': { title: 'Usage statistics (service to service)', guide: 'api.md#surfaces' },
  metrics: { title: 'Metrics', guide: 'production.md#metrics' },
  traces: { title: 'Traces (OpenTelemetry)', guide: 'production.md#traces' },
} as const;

export type Feature = keyof typeof FEATURES;

/**
 * What docs/configuration.md says of one variable. `description` and `feature` are required; `type`,
 * `default` and `values` are read from the schema, and given here only where the schema cannot say
 * (a default computed at start, a URL's scheme).
 */
export interface ConfigDoc {
  feature: Feature;
  description: string;
  type?: string;
  default?: string;
  values?: string;
}

/**
 * The one place a variable's description lives: registered beside it in the schema
 * (`.register(configDocs, { feature, description })`), rendered by reference.ts.
 */
export const configDocs = z.registry<ConfigDoc>();
