import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../shared/logger.js';
import { parseLiveMessage, type LiveMessage } from './account-event.js';
import { LiveRepository } from './live.repository.js';

/**
 * How live events travel between instances (API.md 10.2):
 * - `postgres`: NOTIFY in the transaction that makes the change (delivered when it commits, never
 *   when it rolls back), LISTEN on a connection of its own to PostgreSQL itself (DATABASE_DIRECT_URL
 *   behind a transaction-mode pooler, which cannot keep a LISTEN);
 * - `redis`: PUBLISH once the transaction has committed, SUBSCRIBE on a connection of its own;
 * - `process`: within this process only (the embedded database, which one process holds).
 */
type LiveTransportKind = 'postgres' | 'redis' | 'process';

/** The channel's name: PostgreSQL's NOTIFY channel, Redis's after the key prefix. */
const CHANNEL = 'meeting_accounts_live';

/** The application_name of the PostgreSQL listener's connection (pg_stat_activity shows it). */
export const LISTENER_APPLICATION_NAME = 'meeting-accounts live events';

/** The in-process buses, one per database: the services of one process on one database share it. */
const buses = new Map<string, EventEmitter>();
function busOf(database: string): EventEmitter {
  let bus = buses.get(database);
  if (!bus) {
    bus = new EventEmitter();
    bus.setMaxListeners(0);
    buses.set(database, bus);
  }
  return bus;
}

/** What a use case calls to publish, inside its transaction. */
export interface LivePublisher {
  readonly kind: LiveTransportKind;
  /** Publishes with the caller's transaction: delivered if and when it commits. */
  publish(message: LiveMessage): Promise<void>;
  /**
   * For a statement that can carry the NOTIFY itself (one round trip): the payload to notify with
   * it, on `postgres`; elsewhere undefined, and the message is sent after the commit as by `publish`.
   */
  inline(message: LiveMessage): { channel: string; payload: string } | undefined;
  close(): Promise<void>;
}

export interface LiveTransportSettings {
  kind: LiveTransportKind;
  /** The database the instances share: where `process` keeps its bus. */
  database: string;
  /** Where the PostgreSQL listener connects: PostgreSQL itself. */
  listenUrl?: string;
  redis?: { url: string; keyPrefix: string };
}

export function livePublisher(db: Database, settings: LiveTransportSettings): LivePublisher {
  const afterCommit = (send: (text: string) => void) => (message: LiveMessage) => {
    const text = JSON.stringify(message);
    db.afterCommit(() => send(text));
  };
  switch (settings.kind) {
    case 'postgres': {
      const notices = new LiveRepository(db);
      return {
        kind: 'postgres',
        publish: (message) => notices.notify(CHANNEL, JSON.stringify(message)),
        inline: (message) => ({ channel: CHANNEL, payload: JSON.stringify(message) }),
        close: async () => undefined,
      };
    }
    case 'redis': {
      const { url, keyPrefix } = settings.redis!;
      let redis: Redis | undefined;
      const send = afterCommit((text) => {
        redis ??= connectRedis(url);
        // A publication that fails is lost as a NOTIFY of a lost connection is: sockets whose
        // sessions ended are found when their listener's connection comes back, or at their next request.
        redis.publish(`${keyPrefix}${CHANNEL}`, text).catch(() => undefined);
      });
      return {
        kind: 'redis',
        publish: async (message) => send(message),
        inline: (message) => void send(message),
        close: async () => void (await redis?.quit().catch(() => undefined)),
      };
    }
    case 'process': {
      const bus = busOf(settings.database);
      const send = afterCommit((text) => bus.emit('message', text));
      return { kind: 'process', publish: async (message) => send(message), inline: (message) => void send(message), close: async () => undefined };
    }
  }
}

function connectRedis(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, connectTimeout: 2_000, enableOfflineQueue: true });
  redis.on('error', () => undefined); // reconnects by itself
  return redis;
}

export interface ListenerHandlers {
  message(message: LiveMessage): void;
  /** The connection was lost and is back: what was published meanwhile did not arrive. */
  resumed(): void;
}

/** An instance's subscription to the channel, reconnecting by itself. */
export interface LiveListener {
  /** Resolves once listening, or once the first try failed (it keeps trying). */
  start(): Promise<void>;
  /** Whether it listens now. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export function liveListener(settings: LiveTransportSettings, handlers: ListenerHandlers, logger: Logger): LiveListener {
  const receive = (text: string) => {
    const message = parseLiveMessage(text);
    if (message) handlers.message(message);
    else logger.warn({ length: text.length }, 'a live event in an unknown shape was ignored');
  };
  switch (settings.kind) {
    case 'postgres':
      return new PostgresListener(settings.listenUrl!, receive, handlers.resumed, logger);
    case 'redis':
      return redisListener(settings.redis!, receive, handlers.resumed, logger);
    case 'process': {
      const bus = busOf(settings.database);
      return {
        start: async () => void bus.on('message', receive),
        listening: true,
        close: async () => void bus.off('message', receive),
      };
    }
  }
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/** LISTEN on a connection of its own; when it is lost (a restart, pg_terminate_backend), again, with backoff. */
class PostgresListener implements LiveListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = RETRY_FIRST_MS;
  private retry: NodeJS.Timeout | undefined;
  /** Whether a connection has been lost since the last one was made: the next one is a resumption. */
  private lost = false;
  listening = false;

  constructor(
    private readonly url: string,
    private readonly receive: (text: string) => void,
    private readonly resumed: () => void,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, application_name: LISTENER_APPLICATION_NAME, keepAlive: true, connectionTimeoutMillis: 5_000 });
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      this.listening = false;
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.closed) return;
      if (!this.lost) this.logger.warn({ err: error }, 'the live events listener lost its database connection; reconnecting');
      this.lost = true;
      this.retry = setTimeout(() => void this.connect(), this.retryMs);
      this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('connection ended')));
    client.on('notification', (notification) => {
      if (notification.channel === CHANNEL && notification.payload) this.receive(notification.payload);
    });
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (error) {
      fail(error);
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.listening = true;
    this.retryMs = RETRY_FIRST_MS;
    if (this.lost) {
      this.lost = false;
      this.logger.info('the live events listener is back');
      this.resumed();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.listening = false;
    await this.client?.end().catch(() => undefined);
  }
}

function redisListener(settings: { url: string; keyPrefix: string }, receive: (text: string) => void, resumed: () => void, logger: Logger): LiveListener {
  const channel = `${settings.keyPrefix}${CHANNEL}`;
  const redis = new Redis(settings.url, {
    lazyConnect: true,
    maxRetriesPerRequest: null,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** times),
    // CLIENT LIST shows which connection listens for which deployment.
    connectionName: `${settings.keyPrefix}live-events`,
  });
  let lost = false;
  let listening = false;
  redis.on('error', (error: unknown) => {
    if (!lost && listening) logger.warn({ err: error }, 'the live events listener lost Redis; reconnecting');
  });
  redis.on('close', () => {
    if (listening) lost = true;
    listening = false;
  });
  // ioredis subscribes again by itself when it reconnects.
  redis.on('ready', () => {
    listening = true;
    if (lost) {
      lost = false;
      logger.info('the live events listener is back');
      resumed();
    }
  });
  redis.on('message', (from: string, text: string) => {
    if (from === channel) receive(text);
  });
  return {
    async start() {
      await redis.connect().then(
        () => redis.subscribe(channel),
        (error: unknown) => logger.warn({ err: error }, 'the live events listener could not reach Redis yet; it keeps trying'),
      );
    },
    get listening() {
      return listening;
    },
    close: async () => void (await redis.quit().catch(() => redis.disconnect())),
  };
}
