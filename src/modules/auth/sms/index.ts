import type { Config } from '../../../config/config.js';
import { ConsoleSmsProvider } from './console-sms.js';
import { FileSmsProvider } from './file-sms.js';
import { TwilioSmsProvider, WebhookSmsProvider } from './http-sms.js';
import type { SmsProvider } from './sms-provider.js';
import { SmsWriter } from './sms-text.js';

export function createSmsProvider(config: Config['sms']): SmsProvider {
  const writer = new SmsWriter(config.templates, config.autofill);
  switch (config.provider) {
    case 'console':
      return new ConsoleSmsProvider(writer);
    case 'file':
      return new FileSmsProvider(config.outboxFile, writer);
    case 'twilio':
      return new TwilioSmsProvider({ ...config.twilio, timeoutMs: config.timeoutMs }, writer);
    case 'webhook':
      return new WebhookSmsProvider({ ...config.webhook, timeoutMs: config.timeoutMs }, writer);
  }
}

export type { SmsProvider } from './sms-provider.js';
