import type { WebSocket } from 'ws';
import type { Logger } from '../../shared/logger.js';
import type { Role } from '../account/role.js';
import type { Principal } from '../account/principal.js';
import type { UserView } from '../account/user.view.js';
import type { AuditEntryView } from '../audit/audit-log.service.js';
import { mayEndSessions, type AccountEvent, type LiveMessage } from './account-event.js';

/** A subscriber's events not yet taken by its socket: past this the client is not reading. */
const FEED_LIMIT = 100;
/** What a socket may hold unsent (bytes) before its client counts as not reading. */
const SOCKET_BUFFER_LIMIT = 1024 * 1024;
/** Events of one account a moment apart are delivered before its sockets re-check their sessions. */
const RECHECK_AFTER_MS = 20;

/** Close codes (graphql-ws keeps 4400-4499 for its protocol: 4401 and 4403 mean what it means by them). */
export const CLOSE = {
  /** The session ended, or the token did not authenticate. */
  UNAUTHORIZED: 4401,
  /** The account lost the role its operator subscription needs. */
  FORBIDDEN: 4403,
  /** The instance shuts down. */
  GOING_AWAY: 1001,
  /** The client does not read what it is sent. */
  SLOW_READER: 1008,
} as const;

export interface LiveHubOptions {
  /** The session's account as the per-request check reads it, or undefined when the session is no longer live. */
  liveUser(sessionId: string, userId: string): Promise<UserView | undefined>;
  /** A new audit entry, read once for this instance's operators. */
  auditEntry(id: string): Promise<AuditEntryView | undefined>;
  /** Whether a role may stream the audit log. */
  mayReadAudit(role: Role): boolean;
  logger: Logger;
  /** Told of each event sent to a subscriber, and how long after its publication. */
  delivered?(type: string, seconds: number): void;
}

/** A subscriber's queue of events, read by graphql-ws as an async iterator; bounded. */
export class Feed<T> implements AsyncIterableIterator<T> {
  private readonly queue: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;

  constructor(
    /** Called when the queue is full: the client is not reading. */
    private readonly overflow: () => void,
    private readonly onEnd: () => void,
  ) {}

  push(value: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
    } else if (this.queue.length >= FEED_LIMIT) {
      this.overflow();
    } else {
      this.queue.push(value);
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The client completed the subscription, or its socket closed. */
  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
    this.onEnd();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

/** One authenticated socket: its session, and the subscriptions it holds. */
export class LiveConnection {
  readonly accountFeeds = new Set<Feed<AccountEvent>>();
  readonly auditFeeds = new Set<Feed<AuditEntryView>>();
  closed = false;

  readonly userId: string;
  readonly sessionId: string;

  constructor(
    /** Who signed the socket in; its account as the last check of its session read it. */
    public principal: Principal,
    private readonly socket: WebSocket,
    private readonly hub: LiveHub,
  ) {
    this.userId = principal.userId;
    this.sessionId = principal.sessionId;
  }

  get role(): Role {
    return this.principal.user.role;
  }

  get subscriptions(): number {
    return this.accountFeeds.size + this.auditFeeds.size;
  }

  /** Whether the client keeps up: what the socket holds unsent stays under the limit. */
  reading(): boolean {
    if (this.socket.bufferedAmount <= SOCKET_BUFFER_LIMIT) return true;
    this.close(CLOSE.SLOW_READER, 'Slow reader');
    return false;
  }

  accountEvents(): Feed<AccountEvent> {
    const feed: Feed<AccountEvent> = new Feed(
      () => this.close(CLOSE.SLOW_READER, 'Slow reader'),
      () => this.accountFeeds.delete(feed),
    );
    this.accountFeeds.add(feed);
    return feed;
  }

  auditEntries(): Feed<AuditEntryView> {
    const feed: Feed<AuditEntryView> = new Feed(
      () => this.close(CLOSE.SLOW_READER, 'Slow reader'),
      () => {
        this.auditFeeds.delete(feed);
        this.hub.auditFeedEnded();
      },
    );
    this.auditFeeds.add(feed);
    this.hub.auditFeedStarted();
    return feed;
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.unregister(this);
    for (const feed of [...this.accountFeeds, ...this.auditFeeds]) feed.end();
    // A socket closing or closed already: nothing to send.
    if (this.socket.readyState === this.socket.OPEN) this.socket.close(code, reason);
  }
}

/**
 * An instance's live subscribers, by account, and the fan-out of what its listener receives: an
 * account's events to its subscribers, then a re-check of its sockets' sessions when the event may
 * have ended one (4401); a new audit entry, read once, to the operators.
 */
export class LiveHub {
  private readonly byUser = new Map<string, Set<LiveConnection>>();
  private readonly recheckTimers = new Map<string, NodeJS.Timeout>();
  private auditSubscribers = 0;
  private count = 0;

  constructor(private readonly options: LiveHubOptions) {}

  get connections(): number {
    return this.count;
  }

  register(connection: LiveConnection): void {
    let set = this.byUser.get(connection.userId);
    if (!set) this.byUser.set(connection.userId, (set = new Set()));
    set.add(connection);
    this.count++;
  }

  unregister(connection: LiveConnection): void {
    const set = this.byUser.get(connection.userId);
    if (!set?.delete(connection)) return;
    this.count--;
    if (set.size === 0) this.byUser.delete(connection.userId);
  }

  /** The subscriptions a session holds on this instance, over all its sockets. */
  subscriptionsOf(sessionId: string, userId: string): number {
    let n = 0;
    for (const connection of this.byUser.get(userId) ?? []) if (connection.sessionId === sessionId) n += connection.subscriptions;
    return n;
  }

  auditFeedStarted(): void {
    this.auditSubscribers++;
  }

  auditFeedEnded(): void {
    this.auditSubscribers--;
  }

  dispatch(message: LiveMessage): void {
    if (message.k === 'audit') {
      if (this.auditSubscribers > 0) void this.deliverAudit(message.a, message.at);
      return;
    }
    const connections = this.byUser.get(message.u);
    if (!connections) return;
    const event: AccountEvent = { type: message.t, at: new Date(message.at), sessionId: message.s, detail: message.d };
    const seconds = Math.max(0, Date.now() - message.at) / 1000;
    for (const connection of connections) {
      if (!connection.reading()) continue;
      for (const feed of connection.accountFeeds) {
        feed.push(event);
        this.options.delivered?.(event.type, seconds);
      }
    }
    if (mayEndSessions(message.t)) this.recheckSoon(message.u);
  }

  private async deliverAudit(id: string, at: number): Promise<void> {
    let entry: AuditEntryView | undefined;
    try {
      entry = await this.options.auditEntry(id);
    } catch (error) {
      this.options.logger.warn({ err: error, auditEntry: id }, 'a new audit entry could not be read for its live subscribers');
      return;
    }
    if (!entry) return; // another database's entry (a Redis channel shared), or swept already
    const seconds = Math.max(0, Date.now() - at) / 1000;
    for (const connections of this.byUser.values()) {
      for (const connection of connections) {
        if (connection.auditFeeds.size === 0 || !connection.reading()) continue;
        for (const feed of connection.auditFeeds) {
          feed.push(entry);
          this.options.delivered?.('AUDIT_ENTRY', seconds);
        }
      }
    }
  }

  /** After the events of one moment have been delivered, the account's sockets re-check their sessions. */
  private recheckSoon(userId: string): void {
    if (this.recheckTimers.has(userId)) return;
    this.recheckTimers.set(
      userId,
      setTimeout(() => {
        this.recheckTimers.delete(userId);
        void this.recheck([...(this.byUser.get(userId) ?? [])]);
      }, RECHECK_AFTER_MS),
    );
  }

  /**
   * Every `ms`, every socket re-checks its session: what no event announces (a session that expired,
   * a publication lost after its commit) closes its socket within that time.
   */
  sweepEvery(ms: number): () => void {
    const timer = setInterval(() => void this.recheckAll(), ms);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Every socket of this instance re-checks its session (the listener lost events while away). */
  recheckAll(): Promise<void> {
    const all: LiveConnection[] = [];
    for (const set of this.byUser.values()) all.push(...set);
    return this.recheck(all);
  }

  /**
   * Closes the sockets whose sessions ended (4401), and the operator subscriptions of accounts that
   * lost their role (4403); the others learn their account's role as it is now.
   */
  async recheck(connections: LiveConnection[]): Promise<void> {
    await Promise.all(
      connections.map(async (connection) => {
        let user: UserView | undefined;
        try {
          user = await this.options.liveUser(connection.sessionId, connection.userId);
        } catch (error) {
          // The database cannot say now: the socket stays, and is checked again at the next event or resumption.
          this.options.logger.warn({ err: error }, 'a live socket could not re-check its session');
          return;
        }
        if (!user) connection.close(CLOSE.UNAUTHORIZED, 'Session ended');
        else {
          connection.principal = { ...connection.principal, user };
          if (connection.auditFeeds.size > 0 && !this.options.mayReadAudit(user.role)) connection.close(CLOSE.FORBIDDEN, 'Forbidden');
        }
      }),
    );
  }

  /** Shutdown: every socket closes with `code`. */
  closeAll(code: number, reason: string): void {
    for (const timer of this.recheckTimers.values()) clearTimeout(timer);
    this.recheckTimers.clear();
    for (const set of [...this.byUser.values()]) for (const connection of [...set]) connection.close(code, reason);
  }
}

