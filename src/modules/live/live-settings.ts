import type { Config } from '../../config/config.js';
import type { DatabasePlan } from '../../db/plan.js';
import type { LiveTransportSettings } from './live-transport.js';

/**
 * How this instance's live events travel (LIVE_EVENTS_TRANSPORT, or decided from the database), and,
 * when the choice limits them to this process although the database is shared, why: the start-up
 * log says it.
 */
export function liveTransport(
  config: Config,
  plan: Pick<DatabasePlan, 'url' | 'connections'>,
  /** The server's `select version()`, when known: PGlite's socket server is one session for every connection. */
  serverVersion = '',
): { settings: LiveTransportSettings; warning?: string } {
  const database = plan.url;
  const { redis } = config;
  const { directUrl } = config.database;
  const chosen = config.live.transport;
  if (chosen === 'process' || (!chosen && plan.connections === 'embedded')) return { settings: { kind: 'process', database } };
  if (chosen === 'redis' || (!chosen && redis)) return { settings: { kind: 'redis', database, redis } };
  if (!chosen && /\bPGlite\b/.test(serverVersion)) {
    return {
      settings: { kind: 'process', database },
      warning: 'DATABASE_URL leads to PGlite, whose connections share one session and cannot LISTEN: live events reach only the sockets of this process',
    };
  }
  if (plan.connections === 'transaction' && !directUrl) {
    return {
      settings: { kind: 'process', database },
      warning:
        'live events reach only the sockets of this instance: a LISTEN cannot go through a transaction-mode pooler. Set DATABASE_DIRECT_URL (PostgreSQL itself) or REDIS_URL so that a session ended on one instance closes its sockets on all of them',
    };
  }
  return { settings: { kind: 'postgres', database, listenUrl: directUrl ?? plan.url } };
}
