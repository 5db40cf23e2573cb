import { pino, type Logger } from 'pino';

/** Paths that may carry secrets; pino replaces them wherever they appear in a log object. */
const REDACT = [
  'password', 'newPassword', 'currentPassword', 'code', 'refreshToken', 'accessToken', 'token', 'secret',
  '*.password', '*.newPassword', '*.currentPassword', '*.code', '*.refreshToken', '*.accessToken', '*.token',
  'req.headers.authorization', 'headers.authorization',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'meeting-accounts' } });
}

export type { Logger };
