import { Webhook } from 'standardwebhooks';
import { commaList } from './list.js';

export interface WebhookConfig {
  /** The receivers; empty: webhooks are off and nothing is written to the outbox. */
  urls: string[];
  /** `whsec_` + base64, the Standard Webhooks signing secret; empty when webhooks are off. */
  secret: string;
  /** How long one try waits for an answer. */
  timeoutMs: number;
  /** The waits before the 2nd, 3rd, ... try, in ms; after the last one fails the delivery is DEAD. */
  retryScheduleMs: number[];
  /** DELIVERED and DEAD deliveries older than this are swept by the janitor; PENDING ones are kept. */
  retentionDays: number;
}

interface WebhookEnvironment {
  urls: string;
  secret?: string;
  timeoutMs: number;
  retrySchedule: string;
  retentionDays: number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The webhook settings as read from the environment; bad ones are added to `problems`. */
export function parseWebhooks(e: WebhookEnvironment, problems: string[]): WebhookConfig {
  const urls = commaList(e.urls);
  for (const url of urls) {
    if (!isHttpUrl(url)) problems.push(`WEBHOOK_URLS: ${url.replace(/\/\/[^@/]*@/, '//***@')} is not an http(s) URL`);
  }
  if (new Set(urls).size !== urls.length) problems.push('WEBHOOK_URLS: a URL is listed twice');
  const secret = e.secret ?? '';
  if (urls.length > 0 && !secret) {
    problems.push('WEBHOOK_SECRET: required when WEBHOOK_URLS is set (whsec_ followed by base64, e.g. whsec_$(openssl rand -base64 32))');
  } else if (urls.length === 0 && secret) {
    problems.push('WEBHOOK_SECRET: set without WEBHOOK_URLS (no webhook would be sent); set both or neither');
  } else if (secret && !isSigningSecret(secret)) {
    problems.push('WEBHOOK_SECRET: must be whsec_ followed by the base64 of at least 24 random bytes');
  }
  const retryScheduleMs = e.retrySchedule.split(',').map((item) => durationMs(item.trim()));
  if (retryScheduleMs.length === 0 || retryScheduleMs.some((ms) => ms === undefined)) {
    problems.push('WEBHOOK_RETRY_SCHEDULE: must be a comma-separated list of waits such as 5s,30s,2m,10m,30m,2h,8h (units ms, s, m, h)');
  }
  return { urls, secret, timeoutMs: e.timeoutMs, retryScheduleMs: retryScheduleMs.filter((ms) => ms !== undefined), retentionDays: e.retentionDays };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Checked by the library that signs with it, so that what it refuses is refused at start. */
function isSigningSecret(secret: string): boolean {
  const base64 = secret.slice('whsec_'.length);
  if (!secret.startsWith('whsec_') || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || Buffer.from(base64, 'base64').length < 24) return false;
  try {
    new Webhook(secret);
    return true;
  } catch {
    return false;
  }
}

function durationMs(value: string): number | undefined {
  const match = /^(\d{1,9})(ms|s|m|h)$/.exec(value);
  return match ? Number(match[1]) * UNIT_MS[match[2]!]! : undefined;
}
