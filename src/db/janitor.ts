import type { Logger } from '../shared/logger.js';

/** An owner of rows that expire: deletes those that can no longer matter and says how many, by kind. */
export interface Sweeper {
  sweepExpired(): Promise<Record<string, number>>;
}

/**
 * Asks every owner to delete its rows that can no longer matter (each module sweeps its own tables).
 * Idempotent and safe to run from every instance at once.
 */
export async function sweepExpired(sweepers: readonly Sweeper[]): Promise<Record<string, number>> {
  const counts = await Promise.all(sweepers.map((s) => s.sweepExpired()));
  return Object.assign({}, ...counts) as Record<string, number>;
}

/** Runs `sweepExpired` every `intervalMs` in the background; returns a function that stops it. */
export function startJanitor(sweepers: readonly Sweeper[], logger: Logger, intervalMs = 10 * 60_000): () => void {
  const timer = setInterval(() => {
    sweepExpired(sweepers).then(
      (deleted) => logger.debug({ deleted }, 'expired rows swept'),
      (error: unknown) => logger.warn({ err: error }, 'sweeping expired rows failed; will retry'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
