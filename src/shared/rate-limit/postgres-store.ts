import type { Sql } from '../../db/sql.js';
import type { RateLimitStore, Rule, WindowState } from './rate-limiter.js';

interface Row {
  count: number;
  reset_in: number;
}

/** The upsert of one hit: a new window, or one more hit in the current one. */
const UPSERT = `on conflict (key) do update set
         count = case when rate_limits.reset_at <= now() then 1 else rate_limits.count + 1 end,
         reset_at = case when rate_limits.reset_at <= now() then excluded.reset_at else rate_limits.reset_at end
       returning count, extract(epoch from reset_at - now())::float8 as reset_in`;

/**
 * `n` hits in one statement and one transaction: hit i+1 is made only when hit i stayed within its
 * limit (a data-modifying CTE sees the RETURNING rows of the one before it). Parameters: key and
 * window of every rule ($1, $2, $3, $4, …), then the limits of all rules but the last.
 */
function hitInOrderSql(n: number): string {
  const key = (i: number) => `$${2 * i + 1}`;
  const window = (i: number) => `$${2 * i + 2}`;
  const limit = (i: number) => `$${2 * n + i + 1}`;
  const ctes = Array.from({ length: n }, (_, i) => {
    const values = `${key(i)}, 1, now() + make_interval(secs => ${window(i)})`;
    const source = i === 0 ? `values (${values})` : `select ${values} from h${i - 1} where h${i - 1}.count <= ${limit(i - 1)}`;
    return `h${i} as (insert into rate_limits (key, count, reset_at) ${source}\n       ${UPSERT})`;
  });
  const rows = Array.from({ length: n }, (_, i) => `select ${i} as i, count, reset_in from h${i}`);
  return `with ${ctes.join(',\n')}\n${rows.join(' union all ')} order by i`;
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

  async hitInOrder(rules: Rule[]): Promise<WindowState[]> {
    const rows = await this.sql.rows<Row>(
      hitInOrderSql(rules.length),
      [...rules.flatMap((r) => [r.key, r.windowSeconds]), ...rules.slice(0, -1).map((r) => r.limit)],
      `rate_limit_hit_in_order_${rules.length}`,
    );
    return rows.map(toState);
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
