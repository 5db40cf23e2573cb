import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';

/** Paths that may carry secrets; pino replaces them wherever they appear in a log object. */
// (`code` is not listed: it is also the SQLSTATE of database errors, which operators need.)
const REDACT = [
  'password', 'newPassword', 'currentPassword', 'refreshToken', 'accessToken', 'token', 'secret',
  '*.password', '*.newPassword', '*.currentPassword', '*.refreshToken', '*.accessToken', '*.token',
  'req.headers.authorization', 'req.headers.cookie', 'req.headers["x-internal-key"]',
  'headers.authorization', 'body', '*.body',
  // A database error's detail quotes the failing row ("Failing row contains (…)"): password hash included.
  'err.detail', 'err.cause.detail',
];

const requestScope = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `work` with `requestId` attached to every log line written while it (and what it awaits) runs. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return requestScope.run({ requestId }, work);
}

/** Fields of the current context's trace; none until the tracing module, loaded only when tracing is on, installs them. */
let traceFields: (() => { traceId: string; spanId: string } | undefined) | undefined;

/** Adds `fields()` (the active span's `traceId` and `spanId`) to every log line written while it returns some. */
export function logTraceFields(fields: () => { traceId: string; spanId: string } | undefined): void {
  traceFields = fields;
}

/** JSON lines to standard output, or to `destination` (tests capture logs this way). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: 'meeting-accounts' },
    mixin: () => {
      const scope = requestScope.getStore();
      const fields = scope ? { requestId: scope.requestId } : {};
      return traceFields ? { ...fields, ...traceFields() } : fields;
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * Human-readable lines (pino-pretty, in the main thread, synchronously, so nothing is lost at exit)
 * for a person watching `npm start`; loaded only when asked for, so production never loads it.
 */
export async function prettyDestination(): Promise<DestinationStream> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // An access line on one line: "request completed GET /api/v1/users/me 200 3ms".
    messageFormat: '{msg}{if req.method} {req.method} {req.path} {res.status} {responseTime}ms{end}',
    ignore: 'pid,hostname,service,req,res,responseTime',
  });
}

export type { Logger };
