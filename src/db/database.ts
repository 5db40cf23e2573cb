import { AsyncLocalStorage } from 'node:async_hooks';
import { ForeignKeyConstraintViolationException, TransactionPropagation, UniqueConstraintViolationException, type EntityClass } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { CompiledQuery, type Transaction } from 'kysely';
import type { Pool, QueryResultRow } from 'pg';
import { RETENTION_SWEEP_SETTING } from './retention.js';

/** Quoted table and column names of an entity, read from its metadata; a relation names its foreign key column. */
export type SqlNames<T> = { readonly table: string } & { readonly [K in keyof T & string]: string };

/**
 * The service's access to PostgreSQL, for the repositories and nothing else.
 *
 * Ordinary reads and writes go through `em()`: inside `transaction()` that is the transaction's
 * EntityManager (MikroORM carries it through async calls), elsewhere a fresh fork, one unit of work
 * per repository call. Statements whose atomicity or speed needs hand-written SQL go through
 * `rows()`/`one()`, with table and column names from `names()`: inside a transaction they run on
 * its connection, elsewhere on the pool, prepared once per connection when given a name.
 */
export class Database {
  private readonly quote: (id: string) => string;
  /** Transactions open in this process: with none, explicit SQL skips looking for one. */
  private open = 0;
  /** What runs once the outermost transaction of the caller commits (see afterCommit). */
  private readonly committed = new AsyncLocalStorage<{ listeners: Array<() => void>; open: boolean }>();

  /**
   * `prepare` is off for the embedded database: PGlite is one session behind every socket
   * connection, so a statement prepared on one connection already exists on the next.
   */
  constructor(
    private readonly orm: MikroORM,
    private readonly pool: Pool,
    private readonly prepare: boolean,
  ) {
    this.quote = (id) => orm.em.getPlatform().quoteIdentifier(id);
  }

  static async open(orm: MikroORM, { prepare }: { prepare: boolean }): Promise<Database> {
    return new Database(orm, await orm.em.getConnection().getNativeClient(), prepare);
  }

  /** The EntityManager of the running transaction, or a fork of its own outside one. */
  em(): EntityManager {
    const em = this.orm.em.getContext(false);
    return em.global ? em.fork() : em;
  }

  /**
   * Runs `work` in one transaction: every `em()`, `rows()` and `one()` inside it, in any repository,
   * joins it; a `transaction()` inside joins the outer one. Commits when `work` resolves (flushing
   * the EntityManager first), rolls back when it throws.
   */
  async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.open++;
    try {
      if (this.committed.getStore()?.open) return await this.orm.em.transactional(() => work(), { propagation: TransactionPropagation.REQUIRED });
      // Work started inside and still running after the end (a fire-and-forget write) sees this
      // store closed, and commits on its own.
      const outer = { listeners: [] as Array<() => void>, open: true };
      let result: T;
      try {
        result = await this.committed.run(outer, () => this.orm.em.transactional(() => work(), { propagation: TransactionPropagation.REQUIRED }));
      } finally {
        outer.open = false;
      }
      for (const listener of outer.listeners) listener();
      return result;
    } finally {
      this.open--;
    }
  }

  /**
   * Runs `listener` once the caller's transaction has committed (never when it rolls back), or at
   * once outside a transaction (each statement there commits by itself). It must not throw.
   */
  afterCommit(listener: () => void): void {
    const outer = this.open > 0 ? this.committed.getStore() : undefined;
    if (outer?.open) outer.listeners.push(listener);
    else listener();
  }

  /**
   * `transaction`, named as a retention sweep (RETENTION_SWEEP_SETTING, for this transaction only):
   * the one deleter the append-only tables' triggers let through.
   */
  retentionSweep<T>(work: () => Promise<T>): Promise<T> {
    return this.transaction(async () => {
      await this.rows(`select set_config('${RETENTION_SWEEP_SETTING}', 'on', true)`);
      return work();
    });
  }

  /** Whether the caller runs inside a `transaction()`, whose connection its statements use. */
  inTransaction(): boolean {
    return this.transactionContext() !== undefined;
  }

  /** The running transaction of the caller; with none open in the process, not looked for. */
  private transactionContext(): Transaction<unknown> | undefined {
    return this.open > 0 ? this.orm.em.getContext(false).getTransactionContext<Transaction<unknown>>() : undefined;
  }

  names<T extends object>(entity: EntityClass<T>): SqlNames<T> {
    const meta = this.orm.getMetadata().get(entity);
    const names: Record<string, string> = { table: this.quote(meta.tableName) };
    for (const prop of meta.props) {
      if (prop.fieldNames?.length === 1) names[prop.name] = this.quote(prop.fieldNames[0]!);
    }
    return names as SqlNames<T>;
  }

  async rows<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
    const trx = this.transactionContext();
    if (trx) return (await trx.executeQuery<T>(CompiledQuery.raw(text, values))).rows;
    if (!this.prepare || !name) return (await this.pool.query<T>({ text, values })).rows;
    try {
      return (await this.pool.query<T>({ text, values, name })).rows;
    } catch (error) {
      throw namedStatementLost(error) ?? error;
    }
  }

  async one<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T | undefined> {
    return (await this.rows<T>(text, values, name))[0];
  }

  /**
   * Calls `listener` after every commit of a transaction of this process, outer ones only (those
   * that `transaction()` joined commit with them). It runs no query: a cue, such as "look at the
   * outbox now".
   */
  onCommit(listener: () => void): void {
    this.orm.em.getEventManager().registerSubscriber({ afterTransactionCommit: () => listener() });
  }

  /** What `select version()` says: PostgreSQL's version, or PGlite's behind a socket server. */
  async serverVersion(): Promise<string> {
    return (await this.pool.query<{ version: string }>('select version() as version')).rows[0]!.version;
  }

  /** Whether the database answers a query now (readiness). */
  ping(): Promise<boolean> {
    return this.pool.query('select 1').then(
      () => true,
      () => false,
    );
  }
}

/**
 * A named statement that PostgreSQL found prepared already (42P05) or not at all (26000) on a
 * connection that prepared it: the connection is not one session, which the start-up check
 * (session-check.ts) should have refused. Every such failure says why, with the driver's error as
 * its cause and its code kept.
 */
function namedStatementLost(error: unknown): Error | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== '42P05' && code !== '26000') return undefined;
  const explained = new Error(
    `${(error as Error).message}: a named prepared statement did not stay on its PostgreSQL session, so DATABASE_URL leads to a ` +
      'transaction-mode pooler (PgBouncer, Supavisor, RDS Proxy): set DATABASE_POOL_MODE=transaction',
    { cause: error },
  );
  return Object.assign(explained, { code });
}

/**
 * Whether PostgreSQL refused a row whose foreign key points nowhere (SQLSTATE 23503): MikroORM's
 * exception from the EntityManager, the driver's error from a query builder or explicit SQL.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof ForeignKeyConstraintViolationException || (error as { code?: unknown } | null)?.code === '23503';
}

/** Whether PostgreSQL refused a row that repeats a unique key (SQLSTATE 23505), from the EntityManager or explicit SQL. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof UniqueConstraintViolationException || (error as { code?: unknown } | null)?.code === '23505';
}
