// A GraphQL-over-WebSocket client as a frontend holds one (graphql-ws, the graphql-transport-ws
// protocol), recording what arrives and how the socket closed.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Session } from './factories.js';
import type { TestServer } from './server.js';
import { claimsOf } from './tokens.js';
import { waitFor } from './wait.js';

export interface Closed {
  code: number;
  reason: string;
  /** Date.now() when it closed. */
  at: number;
}

export interface LiveClient {
  client: Client;
  /** How the socket closed, once it did. */
  closed(): Closed | undefined;
  /** Resolves with the close, or rejects after `ms`. */
  waitClosed(ms?: number): Promise<Closed>;
  subscribe<T = any>(query: string, variables?: Record<string, unknown>): LiveSubscription<T>;
  dispose(): Promise<void>;
}

interface LiveSubscription<T> {
  /** The `data` of each result, in order. */
  events: T[];
  /** The errors of `error` messages and of `next` messages that carried them. */
  errors: any[];
  completed(): boolean;
  /** Waits until `count` events have arrived (or an error or the end): the events. */
  waitFor(count: number, ms?: number): Promise<T[]>;
  /** Waits for an error (a refusal): the first. */
  waitError(ms?: number): Promise<any>;
  unsubscribe(): void;
}

/** `http://…` → `ws://…/graphql`. */
export function graphqlWsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/^http/, 'ws')}/graphql`;
}

/**
 * Connects at once (not lazily) with `authorization: Bearer <token>` in connection_init (nothing when
 * `token` is undefined), without retries: a close is what the test looks at.
 */
export function liveClient(baseUrl: string, token: string | undefined, connectionParams?: Record<string, unknown>): LiveClient {
  let closed: Closed | undefined;
  const client = createClient({
    url: graphqlWsUrl(baseUrl),
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    connectionParams: connectionParams ?? (token === undefined ? {} : { authorization: `Bearer ${token}` }),
    on: {
      closed: (event) => {
        const e = event as { code: number; reason: string };
        closed ??= { code: e.code, reason: String(e.reason), at: Date.now() };
      },
    },
    onNonLazyError: () => undefined,
  });
  return {
    client,
    closed: () => closed,
    async waitClosed(ms = 3000) {
      if (!(await waitFor(() => closed !== undefined, ms, 10))) throw new Error(`the socket did not close within ${ms} ms`);
      return closed!;
    },
    subscribe<T>(query: string, variables?: Record<string, unknown>): LiveSubscription<T> {
      const events: T[] = [];
      const errors: any[] = [];
      let done = false;
      const unsubscribe = client.subscribe<T>(
        { query, variables },
        {
          next: (result) => {
            if (result.errors) errors.push(...result.errors);
            if (result.data) events.push(result.data as T);
          },
          error: (error) => {
            errors.push(...(Array.isArray(error) ? error : [error]));
            done = true;
          },
          complete: () => {
            done = true;
          },
        },
      );
      return {
        events,
        errors,
        completed: () => done,
        async waitFor(count, ms = 3000) {
          await waitFor(() => events.length >= count || errors.length > 0 || done, ms, 10);
          if (events.length < count) throw new Error(`${events.length} of ${count} events arrived (errors: ${JSON.stringify(errors)}, closed: ${JSON.stringify(closed)})`);
          return events;
        },
        async waitError(ms = 3000) {
          await waitFor(() => errors.length > 0 || done, ms, 10);
          if (errors.length === 0) throw new Error(`no error arrived (events: ${JSON.stringify(events)}, closed: ${JSON.stringify(closed)})`);
          return errors[0];
        },
        unsubscribe,
      };
    },
    async dispose() {
      await client.dispose();
    },
  };
}

export const ACCOUNT_EVENTS = 'subscription { accountEvents { type at sessionId detail } }';
export const AUDIT_ENTRIES = 'subscription { adminAuditEntries { id action actorId targetUserId detail } }';

/**
 * A socket on `t` with the session's token (added to `open`, for the test's cleanup) and a
 * subscription, returned once the server holds `holding` subscriptions of that session: what a test
 * then changes cannot race the subscribe.
 */
export async function heldSubscription(t: TestServer, session: Session, open: LiveClient[], query = ACCOUNT_EVENTS, holding = 1) {
  const live = liveClient(t.url, session.accessToken);
  open.push(live);
  const sub = live.subscribe(query);
  const { sid } = claimsOf(session.accessToken);
  if (!(await waitFor(() => t.server.services.live.subscriptionsOf(sid, session.userId) >= holding, 3000, 10))) {
    throw new Error(`the subscription was not held (errors: ${JSON.stringify(sub.errors)}, closed: ${JSON.stringify(live.closed())})`);
  }
  return { live, sub };
}
