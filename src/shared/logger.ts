import { pino, type Logger } from 'pino';

/** Paths that may carry secrets; pino replaces them wherever they appear in a log object. */
// (`code` is not listed: it is also the SQLSTATE of database errors, which operators need.)
const REDACT = [
  'password', 'newPassword', 'currentPassword', 'refreshToken', 'accessToken', 'token', 'secret',
  '*.password', '*.newPassword', '*.currentPassword', '*.refreshToken', '*.accessToken', '*.token',
  'req.headers.authorization', 'headers.authorization', 'body', '*.body',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'meeting-accounts' } });
}

export type { Logger };
