import type { TemplateTable } from '../../../config/sms-template-ids.js';
import type { Logger } from '../../../shared/logger.js';
import { SmsDeliveryError, type SmsMessage } from './sms-provider.js';

/**
 * What a template provider's send came to (`sms_provider_answers_total`'s `outcome`). The provider
 * answered: `sent`, or an error code sorted into `rejected_number`, `throttled`, `out_of_balance`,
 * `misconfigured` (credentials, sign, template, parameters: the operator must act) or `error` (any
 * other code). It did not: `unreachable` (no connection could be made), `timeout` (no answer within
 * SMS_TIMEOUT_MS), `connection_lost` (closed after the request went out) or `unknown` (an answer
 * that could not be read). Only the last three may have sent the SMS.
 */
export type SmsProviderOutcome =
  | 'sent'
  | 'rejected_number'
  | 'throttled'
  | 'out_of_balance'
  | 'misconfigured'
  | 'error'
  | 'unreachable'
  | 'timeout'
  | 'connection_lost'
  | 'unknown';

const MAYBE_SENT: ReadonlySet<SmsProviderOutcome> = new Set(['timeout', 'connection_lost', 'unknown']);

/** What the template providers tell monitoring; the metrics edge implements it. */
export interface SmsProviderMetrics {
  smsProviderAnswer(provider: string, outcome: SmsProviderOutcome): void;
}

export interface TemplateProviderDeps {
  logger: Logger;
  metrics?: SmsProviderMetrics;
}

/** The template of a message: its purpose's, in the message's language (the same id in both when one was configured). */
export function templateOf(templates: TemplateTable, message: SmsMessage): string {
  return templates[message.purpose][message.locale];
}

/**
 * The template's parameters, by name (Alibaba Cloud) and in this order (Tencent Cloud): `code` for a
 * code; for a phone change's notice, `ending` (the last 4 digits of the new number: the old number
 * may no longer be the owner's) and `time` (UTC, `YYYY-MM-DD HH:mm`, when the change applies, or
 * applied).
 */
export function templateParams(message: SmsMessage, now = new Date()): [name: string, value: string][] {
  const { notice } = message;
  if (!notice) return [['code', message.code]];
  const when = notice.kind === 'requested' ? notice.appliesAt : now;
  return [
    ['ending', notice.newPhone.slice(-4)],
    ['time', when.toISOString().slice(0, 16).replace('T', ' ')],
  ];
}

/** Codes of Node's network errors raised before a byte of the request left. */
const BEFORE_REQUEST = /\b(ECONNREFUSED|ENOTFOUND|EAI_[A-Z]+|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)\b/;

/**
 * A failure without a provider's answer, from the error's code or (the Tencent Cloud SDK keeps only
 * the message) its text: `unreachable` when no connection could be made (or TLS refused the
 * server), else `timeout` or `connection_lost`, which may have come after the provider read it.
 */
export function transportOutcome(error: unknown): SmsProviderOutcome {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  const name = String((error as { name?: unknown } | null)?.name ?? '');
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  if (BEFORE_REQUEST.test(code) || BEFORE_REQUEST.test(message) || /^(ERR_TLS_|ERR_SSL_)|CERT/.test(code) || /certificate/i.test(message)) return 'unreachable';
  if (/Timeout/i.test(name) || /timeout/i.test(message)) return 'timeout';
  if (/ECONNRESET|EPIPE|socket hang up|ECONNABORTED|premature close/i.test(`${code} ${message}`)) return 'connection_lost';
  return 'unknown';
}

export interface Failure {
  outcome: SmsProviderOutcome;
  /** The provider's error code, or the network error's. */
  providerCode?: string;
  requestId?: string;
}

/**
 * Counts and logs a failed send and returns the error to throw: surely not sent unless no answer
 * was read. The SDK's error is not kept as the cause: its message can hold the request's URL, and
 * with it the code. Misconfiguration is logged at error level, each send fails until it is fixed.
 */
export function failure(provider: string, deps: TemplateProviderDeps, message: SmsMessage, { outcome, providerCode, requestId }: Failure): SmsDeliveryError {
  deps.metrics?.smsProviderAnswer(provider, outcome);
  const line = { provider, outcome, providerCode, requestId, purpose: message.purpose };
  if (outcome === 'misconfigured') deps.logger.error(line, `${provider} SMS: the provider refused the configuration (credentials, sign name or template); every SMS fails until it is fixed`);
  else deps.logger.warn(line, `${provider} SMS: not sent`);
  const detail = [providerCode, requestId && `request ${requestId}`].filter(Boolean).join(', ');
  return new SmsDeliveryError(`${provider}: ${outcome}${detail ? ` (${detail})` : ''}`, { definite: !MAYBE_SENT.has(outcome) });
}

/** An http(s) endpoint URL as the SDKs take it: the protocol, and the host with its port. */
export function endpointParts(endpoint: string): { protocol: 'http' | 'https'; host: string } {
  const url = new URL(endpoint);
  return { protocol: url.protocol === 'http:' ? 'http' : 'https', host: url.host };
}
