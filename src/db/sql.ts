import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';

type Queryable = Pool | PoolClient;

/**
 * Parameterised SQL on the ORM's own `pg` pool, for the statements that must be atomic (conditional
 * updates, upserts) or fast (the per-request session check). Passing `name` makes it a prepared
 * statement, parsed once per connection.
 */
export class Sql {
  /**
   * `pool` is absent inside a transaction, where every statement must use the one client.
   * `prepare` is off for the embedded database: PGlite is one session behind every socket
   * connection, so a statement prepared on one connection already exists on the next.
   */
  constructor(
    private readonly db: Queryable,
    private readonly pool: Pool | undefined,
    private readonly prepare: boolean,
  ) {}

  static async fromOrm(orm: MikroORM, { prepare }: { prepare: boolean }): Promise<Sql> {
    const pool = await orm.em.getConnection().getNativeClient();
    return new Sql(pool, pool, prepare);
  }

  async rows<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T[]> {
    const result = await this.db.query<T>({ text, values, name: this.prepare ? name : undefined });
    return result.rows;
  }

  async one<T extends QueryResultRow>(text: string, values: unknown[] = [], name?: string): Promise<T | undefined> {
    return (await this.rows<T>(text, values, name))[0];
  }

  async count(text: string, values: unknown[] = []): Promise<number> {
    const result = await this.db.query({ text, values });
    return result.rowCount ?? 0;
  }

  /** Runs `work` in one transaction on one connection; rolls back when it throws. */
  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    if (!this.pool) return work(this);
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      const result = await work(new Sql(client, undefined, this.prepare));
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
