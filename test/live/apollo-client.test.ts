// Live account events (API.md 10.2) as a frontend receives them: Apollo Client 4 with the client
// module's store and link, queries and mutations over HTTP, subscriptions over graphql-ws through
// GraphQLWsLink, split by operation as apps do. A change made through the client's own mutation
// reaches its subscription; a logout ends it, the socket closing 4401; a socket without a token is
// refused 4401.
import { afterEach, describe, expect, it } from '@jest/globals';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql, type Observable } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { authLink, graphqlExchange, memoryTokenStore, type TokenStore } from '../../src/client/index.js';
import { registerUser, type Session } from '../helpers/factories.js';
import { graphqlWsUrl, type Closed } from '../helpers/live.js';
import { useTestServer } from '../helpers/server.js';
import { claimsOf } from '../helpers/tokens.js';
import { waitFor } from '../helpers/wait.js';

const t = useTestServer();

const ACCOUNT_EVENTS = gql`subscription AccountEvents { accountEvents { type at sessionId detail } }`;
const UPDATE_PROFILE = gql`mutation UpdateProfile($nickname: String!) { updateProfile(input: { nickname: $nickname }) { id nickname } }`;
const LOGOUT = gql`mutation Logout { logout }`;

interface AccountEvent {
  type: string;
  at: string;
  sessionId: string | null;
  detail: Record<string, unknown> | null;
}

interface App {
  apollo: ApolloClient;
  store: TokenStore;
  socket: Client;
  /** How the socket closed, once it did (graphql-ws's `closed` event). */
  closed(): Closed | undefined;
}

const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) {
    app.apollo.stop();
    await app.socket.dispose();
  }
});

/**
 * An app as a frontend builds one: the client module's store and auth link in front of an HttpLink,
 * and a GraphQLWsLink whose connection_init carries the store's access token, chosen by operation.
 * The socket is lazy and not retried: it opens with the first subscription, and a close is what the
 * tests look at.
 */
function app(session?: Session): App {
  const uri = `${t.url}/graphql`;
  const store = memoryTokenStore();
  if (session) store.signedIn({ accessToken: session.accessToken, refreshToken: session.refreshToken, expiresIn: 900 });
  let closed: Closed | undefined;
  const socket = createClient({
    url: graphqlWsUrl(t.url),
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: () => {
      const token = store.current()?.accessToken;
      return token ? { authorization: `Bearer ${token}` } : {};
    },
    on: {
      closed: (event) => {
        const e = event as { code: number; reason: string };
        closed ??= { code: e.code, reason: String(e.reason), at: Date.now() };
      },
    },
  });
  const http = authLink({ store, exchange: graphqlExchange({ uri }) }).concat(new HttpLink({ uri }));
  const isSubscription = ({ query }: ApolloLink.Operation) => {
    const definition = getMainDefinition(query);
    return definition.kind === 'OperationDefinition' && definition.operation === 'subscription';
  };
  const apollo = new ApolloClient({ link: ApolloLink.split(isSubscription, new GraphQLWsLink(socket), http), cache: new InMemoryCache() });
  const made = { apollo, store, socket, closed: () => closed };
  apps.push(made);
  return made;
}

interface Received {
  events: AccountEvent[];
  /** The errors of results (`result.error`) and the observable's own error, in order. */
  errors: unknown[];
  /** How the observable ended, once it did. */
  ended(): 'complete' | 'error' | undefined;
  done(): boolean;
}

/**
 * Subscribes to the observable, recording what Apollo Client emits and how it ended. Apollo Client 4
 * hands a link's error on as a result's `error`, then completes the observable.
 */
function record(observable: Observable<ApolloClient.SubscribeResult<{ accountEvents: AccountEvent }>>): Received {
  const events: AccountEvent[] = [];
  const errors: unknown[] = [];
  let ended: 'complete' | 'error' | undefined;
  observable.subscribe({
    next: (result) => {
      if (result.data) events.push(result.data.accountEvents);
      if (result.error) errors.push(result.error);
    },
    error: (error) => {
      errors.push(error);
      ended = 'error';
    },
    complete: () => {
      ended = 'complete';
    },
  });
  return { events, errors, ended: () => ended, done: () => ended !== undefined };
}

/** The app's accountEvents subscription, once the server holds it. */
async function subscribed(user: Session, made = app(user)) {
  const received = record(made.apollo.subscribe<{ accountEvents: AccountEvent }>({ query: ACCOUNT_EVENTS }));
  const { sid } = claimsOf(user.accessToken);
  if (!(await waitFor(() => t.server.services.live.subscriptionsOf(sid, user.userId) === 1, 3000, 10))) {
    throw new Error(`the subscription was not held (errors: ${String(received.errors)}, closed: ${JSON.stringify(made.closed())})`);
  }
  return { app: made, received, sid };
}

describe('Apollo Client with GraphQLWsLink', () => {
  it("receives PROFILE_UPDATED when the user changes their nickname with the same client's mutation over HTTP", async () => {
    const user = await registerUser(t);
    const { app: made, received } = await subscribed(user);
    const { data } = await made.apollo.mutate<{ updateProfile: { id: string; nickname: string } }>({ mutation: UPDATE_PROFILE, variables: { nickname: 'Ada' } });
    expect(data?.updateProfile).toMatchObject({ id: user.userId, nickname: 'Ada' });
    expect(await waitFor(() => received.events.length > 0 || received.done(), 3000, 10)).toBe(true);
    expect(received.errors).toEqual([]);
    expect(received.events).toEqual([expect.objectContaining({ type: 'PROFILE_UPDATED', detail: { change: 'PROFILE' } })]);
    expect(received.done()).toBe(false);
    expect(made.closed()).toBeUndefined();
  });

  it('a logout with the same client delivers SESSION_REVOKED, then the socket closes 4401 and the subscription ends with that error', async () => {
    const user = await registerUser(t);
    const { app: made, received, sid } = await subscribed(user);
    const { data } = await made.apollo.mutate<{ logout: boolean }>({ mutation: LOGOUT });
    expect(data?.logout).toBe(true);
    made.store.end('signed_out');
    expect(await waitFor(() => made.closed() !== undefined && received.done(), 2000, 10)).toBe(true);
    expect(made.closed()?.code).toBe(4401);
    expect(received.events.map((event) => event.type)).toEqual(['SESSION_REVOKED']);
    expect(received.events[0]!.sessionId).toBe(sid);
    expect(received.errors).toHaveLength(1);
    expect(String(received.errors[0])).toMatch(/4401/);
    expect(received.ended()).toBe('complete');
    expect(t.server.services.live.subscriptionsOf(sid, user.userId)).toBe(0);
  });

  it('a logout over REST ends it the same way', async () => {
    const user = await registerUser(t);
    const { app: made, received } = await subscribed(user);
    expect((await t.http.post('/api/v1/auth/logout', {}, { token: user.accessToken })).status).toBe(204);
    expect(await waitFor(() => made.closed() !== undefined && received.done(), 2000, 10)).toBe(true);
    expect(made.closed()?.code).toBe(4401);
    expect(received.events.map((event) => event.type)).toEqual(['SESSION_REVOKED']);
    expect(String(received.errors[0])).toMatch(/4401/);
  });

  it('a socket without a token is refused 4401, and the subscription ends with that error', async () => {
    const made = app();
    const received = record(made.apollo.subscribe<{ accountEvents: AccountEvent }>({ query: ACCOUNT_EVENTS }));
    expect(await waitFor(() => made.closed() !== undefined && received.done(), 3000, 10)).toBe(true);
    expect(made.closed()?.code).toBe(4401);
    expect(received.events).toEqual([]);
    expect(String(received.errors[0])).toMatch(/4401/);
  });
});
