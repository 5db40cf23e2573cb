import { createHmac } from 'node:crypto';
import type { SmsMessage, SmsProvider } from './sms-provider.js';

/** Thrown by providers when a message was not accepted; the service answers SMS_DELIVERY_FAILED. */
class SmsDeliveryError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SmsDeliveryError';
  }
}

function smsText({ code, ttlSeconds }: SmsMessage): string {
  return `Your verification code is ${code}. It expires in ${Math.round(ttlSeconds / 60)} minutes. Do not share it.`;
}

/**
 * One POST with a deadline and no retry: a retry could deliver a second SMS, and retrying against a
 * provider in trouble multiplies the trouble. The user can ask for a new code.
 */
async function post(url: string, init: RequestInit, timeoutMs: number, provider: string): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new SmsDeliveryError(`${provider}: no answer within ${timeoutMs} ms or connection failed`, { cause: error });
  }
  await response.body?.cancel();
  if (!response.ok) throw new SmsDeliveryError(`${provider}: answered ${response.status}`);
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

  constructor(private readonly options: TwilioOptions) {
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
        body: new URLSearchParams({ To: message.phone, From: from, Body: smsText(message) }).toString(),
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
 * POSTs `{ phone, code, purpose, text, sentAt }` as JSON. `X-Signature: sha256=<hex>` is the
 * HMAC-SHA256 of `<X-Signature-Timestamp>.<body>` with the shared secret, so the receiver can check
 * origin and freshness.
 */
export class WebhookSmsProvider implements SmsProvider {
  readonly name = 'webhook';
  readonly destination: string;

  constructor(private readonly options: WebhookOptions) {
    this.destination = options.url;
  }

  async send(message: SmsMessage): Promise<void> {
    const body = JSON.stringify({
      phone: message.phone,
      code: message.code,
      purpose: message.purpose,
      text: smsText(message),
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
