import type { Database } from '../../db/database.js';

/** PostgreSQL's side of live events: a NOTIFY, in the caller's transaction (delivered at its commit). */
export class LiveRepository {
  constructor(private readonly db: Database) {}

  async notify(channel: string, payload: string): Promise<void> {
    await this.db.rows('select pg_notify($1, $2)', [channel, payload], 'live_notify');
  }
}
