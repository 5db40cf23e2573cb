import type { Database, SqlNames } from '../../db/database.js';
import { RateLimit } from './rate-limit.entity.js';
import { inFlightKey, type Admission, type RateLimitStore, type Rule, type WindowState } from './rate-limiter.js';

interface Row {
  count: number;
  reset_in: number;
}

type Names = SqlNames<RateLimit>;

/** A new window that starts at `n`, or `n` more in the current one; returns the count and time left. */
const addToWindow = ({ table, key, count, resetAt }: Names, n: number) => `on conflict (${key}) do update set
         ${count} = case when ${table}.${resetAt} <= now() then ${n} else ${table}.${count} + ${n} end,
         ${resetAt} = case when ${table}.${resetAt} <= now() then excluded.${resetAt} else ${table}.${resetAt} end
       returning ${count} as count, extract(epoch from ${resetAt} - now())::float8 as reset_in`;

/** The head of an insert of one counter row: key, count, end of window. */
const insertInto = ({ table, key, count, resetAt }: Names) => `insert into ${table} (${key}, ${count}, ${resetAt})`;

/**
 * `n` hits in one statement and one transaction: hit i+1 is made only when hit i stayed within its
 * limit (a data-modifying CTE sees the RETURNING rows of the one before it). Parameters: key and
 * window of every rule ($1, $2, $3, $4, …), then the limits of all rules but the last.
 */
function hitInOrderSql(t: Names, n: number): string {
  const key = (i: number) => `$${2 * i + 1}`;
  const window = (i: number) => `$${2 * i + 2}`;
  const limit = (i: number) => `$${2 * n + i + 1}`;
  const ctes = Array.from({ length: n }, (_, i) => {
    const values = `${key(i)}, 1, now() + make_interval(secs => ${window(i)})`;
    const source = i === 0 ? `values (${values})` : `select ${values} from h${i - 1} where h${i - 1}.count <= ${limit(i - 1)}`;
    return `h${i} as (${insertInto(t)} ${source}\n       ${addToWindow(t, 1)})`;
  });
  const rows = Array.from({ length: n }, (_, i) => `select ${i} as i, count, reset_in from h${i}`);
  return `with ${ctes.join(',\n')}\n${rows.join(' union all ')} order by i`;
}

/*
 * Failure limits (RateLimiter.admitAttempt): admission, failure and release are one statement each,
 * so one transaction each, made of data-modifying CTEs that each read the one before, which fixes
 * their order. All of them lock rows in one order: the rules' failure rows in rule order, then their
 * in-flight rows in rule order; so they cannot deadlock. While an admission holds a rule's failure
 * row, no failure can be recorded and no other attempt admitted for the rule (a release may only
 * lower the in-flight count), and ON CONFLICT DO UPDATE works on the latest committed version of a
 * row: the admission compares the limit with the failures and attempts in flight of one moment, as
 * the Redis script does.
 */

/**
 * One attempt fewer in flight. A missing row becomes an ended one, so that the chain always goes on
 * to the next rule.
 */
const releaseUpsert = ({ table, key, count }: Names) => `on conflict (${key}) do update set ${count} = greatest(${table}.${count} - 1, 0) returning 1`;

/**
 * Admission: the failure rows of all rules (f0…) locked and read (adding 0), then the in-flight rows
 * (p0…), each counted only when all failures are under their limits and there is room beside this
 * rule's failures; p(i+1) is tried only after p(i) admitted. Parameters: the in-flight lifetime, then
 * each rule's key, window, limit and in-flight key ($2, $3, $4, $5, then $6…).
 */
function admitSql(t: Names, n: number): string {
  const p = (i: number, field: number) => `$${2 + 4 * i + field}`;
  const failures = Array.from({ length: n }, (_, i) => {
    const values = `${p(i, 0)}, 0, now() + make_interval(secs => ${p(i, 1)})`;
    const source = i === 0 ? `values (${values})` : `select ${values} from f${i - 1}`;
    return `f${i} as (${insertInto(t)} ${source}\n       ${addToWindow(t, 0)})`;
  });
  const allUnder = Array.from({ length: n }, (_, i) => `f${i}.count < ${p(i, 2)}`).join(' and ');
  const inFlight = Array.from({ length: n }, (_, i) => {
    const from = i === 0 ? `${Array.from({ length: n }, (_, j) => `f${j}`).join(', ')} where ${allUnder}` : `p${i - 1}`;
    return `p${i} as (${insertInto(t)} select ${p(i, 3)}, 1, now() + make_interval(secs => $1) from ${from}
       on conflict (${t.key}) do update set
         ${t.count} = case when ${t.table}.${t.resetAt} <= now() then 1 else ${t.table}.${t.count} + 1 end,
         ${t.resetAt} = excluded.${t.resetAt}
       where case when ${t.table}.${t.resetAt} <= now() then 0 else ${t.table}.${t.count} end + 1 + (select count from f${i}) <= ${p(i, 2)}
       returning 1)`;
  });
  const rows = Array.from(
    { length: n },
    (_, i) => `select ${i} as i, count, reset_in, exists (select from p${i}) as admitted from f${i}`,
  );
  return `with ${[...failures, ...inFlight].join(',\n')}\n${rows.join(' union all ')} order by i`;
}

/** A failure for every rule, then an attempt fewer in flight. Parameters: each rule's key, window, in-flight key. */
function failSql(t: Names, n: number): string {
  const p = (i: number, field: number) => `$${1 + 3 * i + field}`;
  const failures = Array.from({ length: n }, (_, i) => {
    const values = `${p(i, 0)}, 1, now() + make_interval(secs => ${p(i, 1)})`;
    const source = i === 0 ? `values (${values})` : `select ${values} from f${i - 1}`;
    return `f${i} as (${insertInto(t)} ${source}\n       ${addToWindow(t, 1)})`;
  });
  const inFlight = Array.from({ length: n }, (_, i) => {
    const from = i === 0 ? `f${n - 1}` : `p${i - 1}`;
    return `p${i} as (${insertInto(t)} select ${p(i, 2)}, 0, now() from ${from}\n       ${releaseUpsert(t)})`;
  });
  return `with ${[...failures, ...inFlight].join(',\n')}\nselect from p${n - 1}`;
}

/** An attempt fewer in flight for every rule. Parameters: the in-flight keys. */
function releaseSql(t: Names, n: number): string {
  const inFlight = Array.from({ length: n }, (_, i) => {
    const source = i === 0 ? `values ($1, 0, now())` : `select $${i + 1}, 0, now() from p${i - 1}`;
    return `p${i} as (${insertInto(t)} ${source}\n       ${releaseUpsert(t)})`;
  });
  return `with ${inFlight.join(',\n')}\nselect from p${n - 1}`;
}

interface AdmitRow extends Row {
  /** The attempt was counted in flight for this rule. */
  admitted: boolean;
}

/**
 * The `rate_limits` table. Counters are explicit SQL: each change is one atomic statement, correct
 * under concurrency and across instances sharing the database.
 */
export class PostgresRateLimitStore implements RateLimitStore {
  private readonly t: Names;
  /** The chained statements, built once per kind and number of rules. */
  private readonly chains = new Map<string, string>();
  private readonly sql: { hit: string; undo: string; counts: string; isMember: string; openSet: string; addMember: string };

  constructor(private readonly db: Database) {
    const t = (this.t = db.names(RateLimit));
    this.sql = {
      hit: `${insertInto(t)} values ($1, 1, now() + make_interval(secs => $2))
       ${addToWindow(t, 1)}`,
      undo: `update ${t.table} set ${t.count} = ${t.count} - 1 where ${t.key} = $1 and ${t.count} > 0 and ${t.resetAt} > now()`,
      counts: `select ${t.key} as key, ${t.count} as count from ${t.table} where ${t.key} = any($1) and ${t.resetAt} > now()`,
      // A set is a row counting its members (locked by this upsert until the transaction ends) and a
      // row per member ("<set>|<member>") ending with it.
      isMember: `select exists (select from ${t.table} where ${t.key} = $1 and ${t.resetAt} > now()) as member`,
      openSet: `${insertInto(t)} values ($1, 0, now() + make_interval(secs => $2))
       ${addToWindow(t, 0)}`,
      addMember: `with known as (select exists (select from ${t.table} where ${t.key} = $2 and ${t.resetAt} > now()) as known),
       added as (${insertInto(t)} select $2, 1, ${t.resetAt} from ${t.table}, known where ${t.key} = $1 and not known.known and $3::int < $4::int
         on conflict (${t.key}) do update set ${t.count} = 1, ${t.resetAt} = excluded.${t.resetAt} returning 1),
       counted as (update ${t.table} set ${t.count} = ${t.count} + 1 where ${t.key} = $1 and exists (select from added) returning 1)
       select known.known or exists (select from added) as admitted from known`,
    };
  }

  async hit(key: string, windowSeconds: number): Promise<WindowState> {
    const row = await this.db.one<Row>(this.sql.hit, [key, windowSeconds], 'rate_limit_hit');
    return toState(row!);
  }

  async hitInOrder(rules: Rule[]): Promise<WindowState[]> {
    const rows = await this.db.rows<Row>(
      this.chain('hit', rules.length, hitInOrderSql),
      [...rules.flatMap((r) => [r.key, r.windowSeconds]), ...rules.slice(0, -1).map((r) => r.limit)],
      `rate_limit_hit_in_order_${rules.length}`,
    );
    return rows.map(toState);
  }

  async undo(key: string): Promise<void> {
    await this.db.rows(this.sql.undo, [key], 'rate_limit_undo');
  }

  async counts(keys: string[]): Promise<number[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.rows<{ key: string; count: number }>(this.sql.counts, [keys], 'rate_limit_counts');
    const byKey = new Map(rows.map((r) => [r.key, r.count]));
    return keys.map((k) => byKey.get(k) ?? 0);
  }

  /**
   * A member already in the set is admitted by one read without a lock: members leave a set only
   * when its window ends, and that is what the read checks. A new one takes two statements in one
   * transaction: the set's row is opened (or its ended window restarted) and locked, so that the
   * second, which sees everything committed before the lock, decides alone.
   */
  async admitMember(key: string, member: string, limit: number, windowSeconds: number): Promise<{ admitted: boolean; resetInSeconds: number }> {
    const known = await this.db.one<{ member: boolean }>(this.sql.isMember, [`${key}|${member}`], 'rate_limit_is_member');
    if (known?.member) return { admitted: true, resetInSeconds: windowSeconds };
    return this.db.transaction(async () => {
      const set = toState((await this.db.one<Row>(this.sql.openSet, [key, windowSeconds]))!);
      const row = await this.db.one<{ admitted: boolean }>(this.sql.addMember, [key, `${key}|${member}`, set.count, limit]);
      return { admitted: row!.admitted, resetInSeconds: set.resetInSeconds };
    });
  }

  async admitAttempt(rules: Rule[], inFlightSeconds: number): Promise<Admission> {
    const rows = await this.db.rows<AdmitRow>(
      this.chain('admit', rules.length, admitSql),
      [inFlightSeconds, ...rules.flatMap((r) => [r.key, r.windowSeconds, r.limit, inFlightKey(r)])],
      `rate_limit_admit_${rules.length}`,
    );
    const locked = rows.findIndex((row, i) => row.count >= rules[i]!.limit);
    if (locked >= 0) return { outcome: 'locked', rule: locked, resetInSeconds: toState(rows[locked]!).resetInSeconds };
    const admitted = rows.filter((row) => row.admitted).length;
    if (admitted === rules.length) return { outcome: 'admitted' };
    // A later rule had no room after earlier ones counted the attempt; one statement cannot undo that.
    if (admitted > 0) await this.releaseAttempt(rules.slice(0, admitted));
    return { outcome: 'busy', rule: admitted };
  }

  async failAttempt(rules: Rule[]): Promise<void> {
    await this.db.rows(
      this.chain('fail', rules.length, failSql),
      rules.flatMap((r) => [r.key, r.windowSeconds, inFlightKey(r)]),
      `rate_limit_fail_${rules.length}`,
    );
  }

  async releaseAttempt(rules: Rule[]): Promise<void> {
    await this.db.rows(this.chain('release', rules.length, releaseSql), rules.map(inFlightKey), `rate_limit_release_${rules.length}`);
  }

  private chain(kind: string, n: number, build: (t: Names, n: number) => string): string {
    const key = `${kind}:${n}`;
    let text = this.chains.get(key);
    if (!text) this.chains.set(key, (text = build(this.t, n)));
    return text;
  }

  /** Windows that have ended. */
  async sweepExpired(): Promise<Record<string, number>> {
    return { rateLimits: await this.db.em().nativeDelete(RateLimit, { resetAt: { $lt: new Date() } }) };
  }
}

function toState(row: Row): WindowState {
  return { count: row.count, resetInSeconds: Math.max(0, row.reset_in) };
}
