import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SmsDeliveryError, type SmsMessage, type SmsProvider } from './sms-provider.js';
import type { SmsWriter } from './sms-text.js';

/** Appends one JSON line `{ phone, code, purpose, locale, text, sentAt }` per message; for tests and staging. */
export class FileSmsProvider implements SmsProvider {
  readonly name = 'file';
  readonly destination: string;
  private ready?: Promise<unknown>;

  constructor(
    file: string,
    private readonly writer: SmsWriter,
  ) {
    this.destination = resolve(file);
  }

  async send(message: SmsMessage): Promise<void> {
    const { phone, code, purpose, locale } = message;
    const line = JSON.stringify({ phone, code, purpose, locale, text: this.writer.text(message), sentAt: new Date().toISOString() });
    try {
      this.ready ??= mkdir(dirname(this.destination), { recursive: true });
      await this.ready;
      await appendFile(this.destination, `${line}\n`);
    } catch (error) {
      // The line was not written: no one can read the code.
      throw new SmsDeliveryError(`file: could not append to ${this.destination}`, { definite: true, cause: error });
    }
  }
}
