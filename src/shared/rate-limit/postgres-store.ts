import type { Sql } from '../../db/sql.js';
import type { RateLimitStore, WindowState } from './rate-limiter.js';

interface Row {
  count: number;
  reset_in: number;
}

/** One atomic upsert per hit: correct under concurrency and across instances sharing the database. */
export class PostgresRateLimitStore implements RateLimitStore {
  constructor(private readonly sql: Sql) {}

  async hit(key: string, windowSeconds: number): Promise<WindowState> {
    const row = await this.sql.one<Row>(
      `insert into rate_limits (key, count, reset_at) values ($1, 1, now() + make_interval(secs => $2))
       on conflict (key) do update set
         count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
         reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
       returning count, extract(epoch from reset_at - now())::float8 as reset_in`,
      [key, windowSeconds],
      'rate_limit_hit',
    );
    return toState(row!);
  }

  async peek(key: string): Promise<WindowState> {
    const row = await this.sql.one<Row>(
      `select count, extract(epoch from reset_at - now())::float8 as reset_in
         from rate_limits where key = $1 and reset_at > now()`,
      [key],
      'rate_limit_peek',
    );
    return row ? toState(row) : { count: 0, resetInSeconds: 0 };
  }

  async undo(key: string): Promise<void> {
    await this.sql.rows(
      'update rate_limits set count = count - 1 where key = $1 and count > 0 and reset_at > now()',
      [key],
      'rate_limit_undo',
    );
  }

  async reset(key: string): Promise<void> {
    await this.sql.rows('delete from rate_limits where key = $1', [key], 'rate_limit_reset');
  }
}

function toState(row: Row): WindowState {
  return { count: row.count, resetInSeconds: Math.max(0, row.reset_in) };
}
