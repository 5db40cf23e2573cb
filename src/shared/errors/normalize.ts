import { AppError, ErrorCode, msg } from './app-error.js';

const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);
// PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown),
// and 57014 (query_canceled: the server-side statement timeout of db/orm.ts).
const UNAVAILABLE_SQLSTATE = /^(08|57P|57014$)/;

/** Turns anything thrown into an AppError: known database outages become SERVICE_UNAVAILABLE. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isUnavailable(error)) {
    return new AppError(ErrorCode.SERVICE_UNAVAILABLE, msg('error.storeUnreachable'), { cause: error });
  }
  return new AppError(ErrorCode.INTERNAL, msg('error.internal'), { cause: error });
}

function isUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_ERRNOS.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout/i.test(message)) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
