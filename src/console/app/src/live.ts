import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { GraphQLFormattedError } from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import { ConsoleAccountEventsDocument, type ConsoleAccountEventsSubscription } from '../generated/graphql';
import { requestOf } from './persisted';
import type { Session } from './session';

/** What the page's live indicator says: first connecting, then live, reconnecting while the socket is down. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting';

/** A subscription a page holds, kept across reconnections and restarts of the socket. */
interface Held {
  request: ReturnType<typeof requestOf>;
  next(data: unknown): void;
  /** The API refused the subscription (a role it needs, say): it is over. */
  refused(errors: readonly GraphQLFormattedError[]): void;
  stop?: () => void;
}

/** The socket's close for a session that ended or a token it did not take (API.md 10.2). */
const UNAUTHORIZED = 4401;
/** How long a client-side ping waits for its pong before the socket is taken for dead. */
const PONG_WAIT_MS = 5_000;
/** The pause before a socket the library gave up on (an unusual close) is opened again. */
const RESTART_MS = 5_000;

const isClose = (error: unknown): error is { code: number } => typeof error === 'object' && error !== null && 'code' in error && 'reason' in error;

/** The session id (`sid`) of an access token: which SESSION_REVOKED event is about this console. */
function sessionIdOf(accessToken: string | undefined): string | undefined {
  try {
    const payload = accessToken?.split('.')[1];
    return payload ? (JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { sid?: string }).sid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The console's one WebSocket to /graphql (graphql-ws), open while an operator is signed in: the
 * operator's own `accountEvents`, so that a session ended elsewhere (signed out on another device,
 * revoked, blocked) returns the console to its sign-in form at once, and whatever pages subscribe to
 * besides (the audit log's new entries). The access token goes in `connection_init`, renewed first
 * when it is about to expire; the socket reconnects by itself, with every subscription it held.
 */
export class Live {
  private client?: Client;
  private readonly held = new Set<Held>();
  private state: LiveStatus = 'connecting';
  private readonly listeners = new Set<() => void>();
  private restartTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly session: Session) {
    session.store.subscribe((change) => {
      if (change.type === 'ended') this.stop();
      else if (!this.client) this.start();
    });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly status = (): LiveStatus => this.state;

  /** Holds a subscription while the operator stays signed in; returns its end. */
  hold<T>(document: TypedDocumentNode<T, Record<string, never>>, next: (data: T) => void, refused: Held['refused'] = () => undefined): () => void {
    const held: Held = { request: requestOf(document), next: next as Held['next'], refused };
    this.held.add(held);
    if (this.client) this.open(this.client, held);
    return () => {
      this.held.delete(held);
      held.stop?.();
    };
  }

  private start(): void {
    clearTimeout(this.restartTimer);
    let pongWait: ReturnType<typeof setTimeout> | undefined;
    let socket: WebSocket | undefined;
    const client = createClient({
      url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
      connectionParams: async () => ({ authorization: `Bearer ${await this.session.freshAccessToken()}` }),
      // A page open for days outlives any count of attempts: it retries until the operator leaves.
      retryAttempts: Infinity,
      retryWait: (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(1_000 * 2 ** retries, 30_000) + Math.random() * 1_000)),
      // The server's pings keep the socket open, but a browser does not tell a page of a dead one (a
      // laptop that slept): the console pings too, and a ping unanswered closes the socket to retry.
      keepAlive: 15_000,
      on: {
        connected: (opened) => {
          socket = opened as WebSocket;
          if (client === this.client) this.setStatus('live');
        },
        ping: (received) => {
          if (received) return;
          pongWait = setTimeout(() => socket?.readyState === WebSocket.OPEN && socket.close(4408, 'Request Timeout'), PONG_WAIT_MS);
        },
        pong: (received) => received && clearTimeout(pongWait),
        closed: () => {
          clearTimeout(pongWait);
          if (client === this.client) this.setStatus('reconnecting');
        },
      },
    });
    this.client = client;
    const account: Held = {
      request: requestOf(ConsoleAccountEventsDocument),
      next: (data) => this.accountEvent((data as ConsoleAccountEventsSubscription).accountEvents),
      // Refused (a service whose trusted documents lack the console's new ones): the console works as
      // before, learning of a session's end from its next request.
      refused: () => undefined,
    };
    this.open(client, account, (error) => void this.closedForGood(client, error));
    for (const held of this.held) this.open(client, held);
  }

  /** `closed`: told when the socket closed for good (every subscription hears it; one acts on it). */
  private open(client: Client, held: Held, closed?: (error: unknown) => void): void {
    held.stop = client.subscribe(held.request, {
      next: (result) => {
        if (result.data) held.next(result.data);
      },
      error: (error) => {
        if (Array.isArray(error)) held.refused(error as GraphQLFormattedError[]);
        else closed?.(error);
      },
      complete: () => undefined,
    });
  }

  /**
   * The library does not reconnect after a close like 4401. 4401: the session ended (a refresh
   * refused says so, and the session shows the notice), or the token was not taken (a key retired:
   * the refresh succeeds and the socket opens again with the new token). Anything else: a pause,
   * then a new socket.
   */
  private async closedForGood(client: Client, error: unknown): Promise<void> {
    if (client !== this.client) return;
    this.setStatus('reconnecting');
    if (isClose(error) && error.code === UNAUTHORIZED) {
      if ((await this.session.stillSignedIn()) && client === this.client) this.restart();
      return;
    }
    this.restartTimer = setTimeout(() => client === this.client && this.restart(), RESTART_MS);
  }

  private accountEvent(event: ConsoleAccountEventsSubscription['accountEvents']): void {
    const own = sessionIdOf(this.session.store.current()?.accessToken);
    const ended =
      (event.type === 'SESSION_REVOKED' && event.sessionId === own) || (event.type === 'SIGNED_OUT_EVERYWHERE' && event.detail.exceptSessionId !== own);
    if (ended) this.session.endedElsewhere();
  }

  private restart(): void {
    this.dispose();
    this.start();
  }

  private stop(): void {
    this.dispose();
    this.setStatus('connecting');
  }

  private dispose(): void {
    clearTimeout(this.restartTimer);
    const client = this.client;
    this.client = undefined;
    for (const held of this.held) held.stop = undefined;
    void client?.dispose();
  }

  private setStatus(status: LiveStatus): void {
    if (status === this.state) return;
    this.state = status;
    for (const listener of this.listeners) listener();
  }
}
