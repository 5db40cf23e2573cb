import pg from 'pg';

/**
 * The `pg` client of DATABASE_POOL_MODE=transaction (API.md 9.4). Behind a transaction-mode pooler a
 * connection is a PostgreSQL session only for the length of one transaction, so nothing may outlive
 * one: no startup parameters, no named prepared statements, no `SET` without `LOCAL`. Every pooled
 * connection of the service is one of these, so MikroORM's queries and the hand-written SQL alike
 * get, without knowing it:
 *
 * - the server-side limits (`statement_timeout`) set with `set_config(…, true)` inside the
 *   transaction they run in: a statement that starts one (`begin`, or any statement outside an
 *   explicit transaction, which is a transaction of its own) carries the `set_config` in the same
 *   round trip and the same transaction, ahead of it;
 * - statement names dropped: every statement is parsed unnamed, in the same message batch as its
 *   execution, which a pooler never splits.
 */
export function transactionPoolingClient(limits: Readonly<Record<string, number>>): typeof pg.Client {
  // Names and values are the service's own constants (orm.ts), never input.
  const setLimits = `select ${Object.entries(limits)
    .map(([name, value]) => `set_config('${name}', '${value}', true)`)
    .join(', ')}`;

  class LimitedQuery extends WireQuery {
    /** Whether this query opens a transaction, and so carries the limits. */
    private opens = false;
    /** The limits' own answer (a row and a completion) is still to come, and is not the caller's. */
    private limitsPending = false;

    constructor(
      private readonly client: pg.Client,
      config: unknown,
      values?: unknown,
      callback?: unknown,
    ) {
      super(config, values, callback);
      this.name = undefined;
    }

    override submit(connection: WireConnection): Error | null {
      // Decided as the query goes out, not when it was queued: the client's transaction status is the
      // one of the ReadyForQuery just before it ('I': idle, outside any transaction).
      this.opens = this.client.getTransactionStatus() === 'I';
      // A query without parameters goes out as a simple query, which may hold several statements:
      // the limits go first in the same text, one implicit transaction (a `begin` after them takes
      // them into its transaction block, as PostgreSQL documents for multi-statement queries).
      if (this.opens && !this.requiresPreparation()) this.text = `${setLimits}; ${this.text}`;
      return super.submit(connection);
    }

    override prepare(connection: WireConnection): void {
      // Extended protocol: the limits are parsed, bound and executed ahead of the statement, before
      // the one Sync that ends the implicit transaction both run in.
      if (this.opens) {
        connection.parse({ text: setLimits });
        connection.bind({});
        connection.execute({});
        this.limitsPending = true;
      }
      super.prepare(connection);
    }

    override handleDataRow(message: unknown): void {
      if (!this.limitsPending) super.handleDataRow(message);
    }

    override handleCommandComplete(message: unknown, connection: WireConnection): void {
      if (this.limitsPending) this.limitsPending = false;
      else super.handleCommandComplete(message, connection);
    }

    override handleReadyForQuery(connection: WireConnection): void {
      // A simple query with the limits ahead answered two results or more: the caller's are the rest.
      if (this.opens && Array.isArray(this._results)) {
        const own = this._results.slice(1);
        this._results = own.length === 1 ? own[0] : own;
      }
      super.handleReadyForQuery(connection);
    }
  }

  return class TransactionPoolingClient extends pg.Client {
    override query(...args: unknown[]): any {
      const [config, values, callback] = args;
      // Cursors and other ready-made submittables (none in the service's own paths) go out as they are.
      if (typeof (config as { submit?: unknown } | null)?.submit === 'function') return super.query(config as pg.Submittable);
      const query = new LimitedQuery(this, config, values, callback);
      if (query.callback) {
        super.query(query as unknown as pg.Submittable);
        return undefined;
      }
      return new Promise((resolve, reject) => {
        query.callback = (error, result) => (error ? reject(error) : resolve(result));
        super.query(query as unknown as pg.Submittable);
      });
    }
  };
}

/** The wire-level parts of pg's connection that a query writes to (lib/connection.js). */
interface WireConnection {
  parse(message: { text: string }): void;
  bind(message: object): void;
  execute(message: object): void;
}

/**
 * pg's Query as lib/query.js implements it: @types/pg describes only what an application calls, not
 * the hooks the client calls on the query it is running.
 */
interface WireQueryShape {
  text: string;
  name?: string;
  callback?: (error: Error | null, result?: unknown) => void;
  _results: unknown;
  requiresPreparation(): boolean;
  submit(connection: WireConnection): Error | null;
  prepare(connection: WireConnection): void;
  handleDataRow(message: unknown): void;
  handleCommandComplete(message: unknown, connection: WireConnection): void;
  handleReadyForQuery(connection: WireConnection): void;
}

const WireQuery = pg.Query as unknown as new (config: unknown, values?: unknown, callback?: unknown) => WireQueryShape;
