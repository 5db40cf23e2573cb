import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths that may carry secrets; pino replaces them wherever they appear in a log object. */
// (`code` is not listed: it is also the SQLSTATE of database errors, which operators need.)
const REDACT = [
  'password', 'newPassword', 'currentPassword', 'refreshToken', 'accessToken', 'token', 'secret',
  '*.password', '*.newPassword', '*.currentPassword', '*.refreshToken', '*.accessToken', '*.token',
  'req.headers.authorization', 'headers.authorization', 'body', '*.body',
];

/** JSON lines to standard output, or to `destination` (tests capture logs this way). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT, censor: '[redacted]' }, base: { service: 'meeting-accounts' } };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
