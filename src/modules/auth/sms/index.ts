import type { Config } from '../../../config/config.js';
import { ConsoleSmsProvider } from './console-sms.js';
import { FileSmsProvider } from './file-sms.js';
import { TwilioSmsProvider, WebhookSmsProvider } from './http-sms.js';
import type { SmsProvider } from './sms-provider.js';

export function createSmsProvider(config: Config['sms']): SmsProvider {
  switch (config.provider) {
    case 'console':
      return new ConsoleSmsProvider();
    case 'file':
      return new FileSmsProvider(config.outboxFile);
    case 'twilio':
      return new TwilioSmsProvider({ ...config.twilio, timeoutMs: config.timeoutMs });
    case 'webhook':
      return new WebhookSmsProvider({ ...config.webhook, timeoutMs: config.timeoutMs });
  }
}

export type { SmsProvider } from './sms-provider.js';
