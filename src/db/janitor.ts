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

/**
 * Work that must happen when its time comes, whether or not a request comes (a waiting phone change
 * applies): its state is in the database, so it survives restarts, and `run` is safe on every
 * instance at once (each item is taken under a row lock).
 */
export interface ScheduledJob {
  name: string;
  intervalMs: number;
  /** Does what is due; returns how many items it handled. */
  run(): Promise<number>;
}

/** Runs every job on its interval in the background, one run of a job at a time; returns a function that stops them. */
export function startJobs(jobs: readonly ScheduledJob[], logger: Logger): () => void {
  const timers = jobs.map((job) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      job.run().then(
        (handled) => handled > 0 && logger.info({ job: job.name, handled }, 'scheduled job ran'),
        (error: unknown) => logger.warn({ err: error, job: job.name }, 'a scheduled job failed; will retry'),
      ).finally(() => {
        running = false;
      });
    }, job.intervalMs);
    timer.unref();
    return timer;
  });
  return () => timers.forEach((timer) => clearInterval(timer));
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
