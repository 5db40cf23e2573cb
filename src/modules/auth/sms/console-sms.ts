import type { SmsMessage, SmsProvider } from './sms-provider.js';
import { smsText } from './sms-text.js';

/** Development provider: prints the code to standard output. */
export class ConsoleSmsProvider implements SmsProvider {
  readonly name = 'console';
  readonly destination = 'standard output of the service';

  async send(message: SmsMessage): Promise<void> {
    const { phone, code, purpose, ttlSeconds } = message;
    process.stdout.write(message.notice ? `[sms] ${phone} ${purpose}: ${smsText(message)}\n` : `[sms] ${phone} ${purpose} code ${code} (valid ${ttlSeconds}s)\n`);
  }
}
