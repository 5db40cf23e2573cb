import type { SmsMessage, SmsProvider } from './sms-provider.js';
import type { SmsWriter } from './sms-text.js';

/** Development provider: prints the code to standard output. */
export class ConsoleSmsProvider implements SmsProvider {
  readonly name = 'console';
  readonly destination = 'standard output of the service';

  constructor(private readonly writer: SmsWriter) {}

  async send(message: SmsMessage): Promise<void> {
    const { phone, code, purpose, ttlSeconds } = message;
    process.stdout.write(message.notice ? `[sms] ${phone} ${purpose}: ${this.writer.text(message)}\n` : `[sms] ${phone} ${purpose} code ${code} (valid ${ttlSeconds}s)\n`);
  }
}
