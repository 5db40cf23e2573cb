import type { Config } from '../../../config/config.js';
import { AliyunSmsProvider } from './aliyun-sms.js';
import { ConsoleSmsProvider } from './console-sms.js';
import { FileSmsProvider } from './file-sms.js';
import { TwilioSmsProvider, WebhookSmsProvider } from './http-sms.js';
import type { SmsProvider } from './sms-provider.js';
import { SmsWriter } from './sms-text.js';
import { TencentSmsProvider } from './tencent-sms.js';
import type { TemplateProviderDeps } from './template-sms.js';

/**
 * The configured provider. The text providers write from SMS_TEMPLATES; `deps` (the log, and the
 * metrics when on) serve the template providers, whose texts are registered with the provider.
 */
export function createSmsProvider(config: Config['sms'], deps: TemplateProviderDeps): SmsProvider {
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
    case 'aliyun':
      // loadConfig refuses SMS_PROVIDER=aliyun without its settings.
      return new AliyunSmsProvider(config.aliyun!, config.timeoutMs, deps);
    case 'tencent':
      return new TencentSmsProvider(config.tencent!, config.timeoutMs, deps);
  }
}

export type { SmsProvider } from './sms-provider.js';
