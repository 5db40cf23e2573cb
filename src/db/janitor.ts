import type { Logger } from '../shared/logger.js';
import type { Sql } from './sql.js';

/**
 * Deletes rows that can no longer matter: ended rate-limit windows, codes a day past expiry,
 * expired refresh tokens, and sessions that ended (expired or revoked) more than a week ago.
 * Idempotent and safe to run from every instance at once.
 */
export async function sweepExpired(sql: Sql): Promise<Record<string, number>> {
  return {
    rateLimits: await sql.count(`delete from rate_limits where reset_at < now()`),
    codes: await sql.count(`delete from verification_codes where expires_at < now() - interval '1 day'`),
    refreshTokens: await sql.count(`delete from refresh_tokens where expires_at < now()`),
    sessions: await sql.count(
      `delete from sessions where coalesce(revoked_at, expires_at) < now() - interval '7 days' and (revoked_at is not null or expires_at < now())`,
    ),
  };
}

/** Runs `sweepExpired` every `intervalMs` in the background; returns a function that stops it. */
export function startJanitor(sql: Sql, logger: Logger, intervalMs = 10 * 60_000): () => void {
  const timer = setInterval(() => {
    sweepExpired(sql).then(
      (deleted) => logger.debug({ deleted }, 'expired rows swept'),
      (error: unknown) => logger.warn({ err: error }, 'sweeping expired rows failed; will retry'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
