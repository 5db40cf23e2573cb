import type { CodePurpose } from '../code-purpose.js';

export interface SmsMessage {
  phone: string;
  code: string;
  purpose: CodePurpose;
  ttlSeconds: number;
}

/** Delivers verification codes. Real providers implement this; `send` rejects when delivery failed. */
export interface SmsProvider {
  readonly name: string;
  /** Where codes end up, for the start-up summary. */
  readonly destination: string;
  send(message: SmsMessage): Promise<void>;
}
