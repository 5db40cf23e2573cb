import pg from 'pg';

/** Raised when a database URL cannot be used as the configuration says; the message names what to set. */
export class PoolModeError extends Error {
  override name = 'PoolModeError';
}

export interface SessionCheck {
  /** The variable the URL comes from, for the message (DATABASE_URL, DATABASE_DIRECT_URL). */
  variable: string;
  url: string;
  /** Startup parameters the service's connections send, which must reach PostgreSQL as sent. */
  startup: Readonly<Record<string, number>>;
  /** Whether named prepared statements will be used: a session shared by every connection breaks them. */
  namedStatements: boolean;
  /** What to set instead, ending every refusal. */
  remedy: string;
  connectionTimeoutMillis: number;
}

/**
 * Makes sure that `url` gives each client connection a PostgreSQL session of its own for as long as
 * it is open, as session mode assumes (named prepared statements, startup parameters, the
 * migrations' session-level advisory lock), and throws a PoolModeError saying what to set when it
 * does not. Other failures (the database unreachable) are thrown as they are.
 *
 * A transaction-mode pooler shows a client three things PostgreSQL itself never does:
 * - it refuses a startup parameter it does not know (PgBouncer: `unsupported startup parameter`),
 *   or drops it silently when told to ignore it: the server then runs with its own default;
 * - between two transactions a client connection is attached to no server session: another
 *   client's transaction may get the very session this one has just used (PgBouncer hands out the
 *   most recently used one), and this one's next statement then runs on another session;
 * - the backend key of the login (`processID`) is the pooler's own, not the server process's
 *   `pg_backend_pid()`: that tells a pooler from a server that shares one session between every
 *   connection on its own (PGlite's socket server, which also runs one transaction at a time).
 */
export async function assertOwnSessions(check: SessionCheck): Promise<void> {
  const first = await connect(check);
  try {
    await expectStartupParameters(first, check);
    const second = await connect(check);
    try {
      for (let round = 0; round < PROBE_ROUNDS; round++) {
        // Each holds the transaction in turn, in case the pooler lends the idle session it used last.
        const seen = round % 2 === 0 ? await probe(first, second) : await probe(second, first);
        if (!seen) continue;
        const pooler = seen.keyPid !== seen.before;
        if (!pooler && !check.namedStatements) return;
        throw new PoolModeError(`${check.variable} ${seen.what}: ${pooler ? 'a transaction-mode pooler' : 'every connection shares one session'}. ` +
          'Named prepared statements, session settings and session-level locks made on one client connection would then be found by other ' +
          `clients, or missing on this one's next statement (such as "prepared statement … does not exist" on some requests). ${check.remedy}`);
      }
    } finally {
      await second.end().catch(() => undefined);
    }
  } finally {
    await first.end().catch(() => undefined);
  }
}

/** A transaction pooler may lend the holding connection another idle session; a few rounds find it. */
const PROBE_ROUNDS = 4;

async function connect(check: SessionCheck): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: check.url, connectionTimeoutMillis: check.connectionTimeoutMillis, ...check.startup });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const name = Object.keys(check.startup).find((p) => message.includes(p));
    if (/startup parameter/i.test(message) && name) {
      throw new PoolModeError(`${check.variable} refused the startup parameter ${name} ("${message}"): it leads to a connection pooler, not to PostgreSQL. ${check.remedy}`, { cause: error });
    }
    throw error;
  }
}

async function expectStartupParameters(client: pg.Client, check: SessionCheck): Promise<void> {
  for (const [name, value] of Object.entries(check.startup)) {
    const { rows } = await client.query<{ setting: string; unit: string | null }>('select setting, unit from pg_settings where name = $1', [name]);
    const setting = rows[0]?.setting;
    if (setting === String(value)) continue;
    throw new PoolModeError(
      `${check.variable} dropped the startup parameter ${name}=${value}: PostgreSQL runs with ${name} = ${setting}${rows[0]?.unit ?? ''}. ` +
        `Something between the service and PostgreSQL, a pooler told to ignore it, does not pass session settings on. ${check.remedy}`,
    );
  }
}

/**
 * The second connection holds a transaction open while the first runs a statement outside one; on
 * sessions of their own, the first always answers from its session and the second from another.
 * Returns what shows otherwise, or undefined when nothing did this time.
 */
async function probe(first: pg.Client, second: pg.Client): Promise<{ what: string; before: number; keyPid: number } | undefined> {
  const pid = async (client: pg.Client) => (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  // The backend key of the first's login: the server's pid on PostgreSQL itself, the pooler's own number through one.
  const keyPid = (first as unknown as { processID: number }).processID;
  const before = await pid(first);
  await second.query('begin');
  try {
    const held = await pid(second);
    // Stop here on a server that runs one transaction at a time: the first would wait for the second.
    if (held === before) return { before, keyPid, what: `ran two client connections on one PostgreSQL session (backend ${held})` };
    const after = await pid(first);
    if (after !== before) {
      return { before, keyPid, what: `moved one client connection between PostgreSQL sessions (backend ${before}, then ${after}, while another connection held a transaction on ${held})` };
    }
    return undefined;
  } finally {
    await second.query('commit');
  }
}
