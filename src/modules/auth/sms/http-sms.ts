import { createHmac } from 'node:crypto';
import { SmsDeliveryError, type SmsMessage, type SmsProvider } from './sms-provider.js';
import type { SmsWriter } from './sms-text.js';

/**
 * Failures of fetch before a byte of the request left: refused or unreachable, a name that does not
 * resolve, a TLS handshake that failed. Anything else (the deadline, a connection reset or closed
 * after connecting) may have come after the provider read the request, and may have sent the SMS.
 */
const BEFORE_REQUEST = /^(ECONNREFUSED|ENOTFOUND|EAI_\w+|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_\w+|ERR_SSL_\w+|\w*CERT\w*)$/;

function failedBeforeRequest(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (!cause || typeof cause !== 'object') return false;
  // fetch itself refuses some ports (9, 25, ...) without connecting.
  if ((cause as { message?: unknown }).message === 'bad port') return true;
  // Several addresses tried (IPv6 and IPv4): surely not sent only when no attempt connected.
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every((e) => BEFORE_REQUEST.test(String((e as { code?: unknown })?.code)));
  return BEFORE_REQUEST.test(String((cause as { code?: unknown }).code));
}

/**
 * One POST with a deadline and no retry: a retry could deliver a second SMS, and retrying against a
 * provider in trouble multiplies the trouble. The user can ask for a new code.
 */
async function post(url: string, init: RequestInit, timeoutMs: number, provider: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const definite = failedBeforeRequest(error);
    const what = definite ? 'could not connect' : `no answer within ${timeoutMs} ms or the connection was lost`;
    throw new SmsDeliveryError(`${provider}: ${what}`, { definite, cause: error });
  }
  await response.body?.cancel();
  // An answer that is not a success (a redirect included, never followed): the provider refused it.
  if (!response.ok) throw new SmsDeliveryError(`${provider}: answered ${response.status}`, { definite: true });
}

export interface TwilioOptions {
  baseUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  timeoutMs: number;
}

/** Twilio's Messages API, or any service that speaks it (base URL configurable). */
export class TwilioSmsProvider implements SmsProvider {
  readonly name = 'twilio';
  readonly destination: string;

  constructor(
    private readonly options: TwilioOptions,
    private readonly writer: SmsWriter,
  ) {
    this.destination = `${options.baseUrl} (account ${options.accountSid})`;
  }

  async send(message: SmsMessage): Promise<void> {
    const { baseUrl, accountSid, authToken, from, timeoutMs } = this.options;
    const url = `${baseUrl.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    await post(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ To: message.phone, From: from, Body: this.writer.text(message) }).toString(),
      },
      timeoutMs,
      'twilio',
    );
  }
}

export interface WebhookOptions {
  url: string;
  secret: string;
  timeoutMs: number;
}

/**
 * POSTs `{ phone, code, purpose, locale, text, sentAt }` as JSON. `X-Signature: sha256=<hex>` is the
 * HMAC-SHA256 of `<X-Signature-Timestamp>.<body>` with the shared secret, so the receiver can check
 * origin and freshness.
 */
export class WebhookSmsProvider implements SmsProvider {
  readonly name = 'webhook';
  readonly destination: string;

  constructor(
    private readonly options: WebhookOptions,
    private readonly writer: SmsWriter,
  ) {
    this.destination = options.url;
  }

  async send(message: SmsMessage): Promise<void> {
    const body = JSON.stringify({
      phone: message.phone,
      code: message.code,
      purpose: message.purpose,
      locale: message.locale,
      text: this.writer.text(message),
      sentAt: new Date().toISOString(),
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', this.options.secret).update(`${timestamp}.${body}`).digest('hex');
    await post(
      this.options.url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature': `sha256=${signature}`, 'x-signature-timestamp': timestamp },
        body,
      },
      this.options.timeoutMs,
      'webhook',
    );
  }
}
