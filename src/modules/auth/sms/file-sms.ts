import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { SmsMessage, SmsProvider } from './sms-provider.js';

/** Appends one JSON line `{ phone, code, purpose, sentAt }` per message; for tests and staging. */
export class FileSmsProvider implements SmsProvider {
  readonly name = 'file';
  readonly destination: string;
  private ready?: Promise<unknown>;

  constructor(file: string) {
    this.destination = resolve(file);
  }

  async send({ phone, code, purpose }: SmsMessage): Promise<void> {
    this.ready ??= mkdir(dirname(this.destination), { recursive: true });
    await this.ready;
    const line = JSON.stringify({ phone, code, purpose, sentAt: new Date().toISOString() });
    await appendFile(this.destination, `${line}\n`);
  }
}
