import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SmsDeliveryError, type SmsMessage, type SmsProvider } from './sms-provider.js';
import { smsText } from './sms-text.js';

/** Appends one JSON line `{ phone, code, purpose, text, sentAt }` per message; for tests and staging. */
export class FileSmsProvider implements SmsProvider {
  readonly name = 'file';
  readonly destination: string;
  private ready?: Promise<unknown>;

  constructor(file: string) {
    this.destination = resolve(file);
  }

  async send(message: SmsMessage): Promise<void> {
    const { phone, code, purpose } = message;
    const line = JSON.stringify({ phone, code, purpose, text: smsText(message), sentAt: new Date().toISOString() });
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
