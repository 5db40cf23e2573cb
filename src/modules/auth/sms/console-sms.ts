import type { SmsMessage, SmsProvider } from './sms-provider.js';

/** Development provider: prints the code to standard output. */
export class ConsoleSmsProvider implements SmsProvider {
  readonly name = 'console';
  readonly destination = 'standard output of the service';

  async send({ phone, code, purpose, ttlSeconds }: SmsMessage): Promise<void> {
    process.stdout.write(`[sms] ${phone} ${purpose} code ${code} (valid ${ttlSeconds}s)\n`);
  }
}
