import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { authLink } from '../../../client/index';
import { localeStore } from './i18n/store';
import { hashOf, textOf } from './persisted';
import type { Session } from './session';

/**
 * Apollo Client for /graphql, this origin only:
 * - the client module's link: the session's bearer token on every request but the session's own
 *   (`context.anonymous`), renewed before it expires and once more when the API answers that it
 *   expired (a tab that slept); an answer that the session ended ends it;
 * - documents sent by their SHA-256 (the console's trusted-documents manifest), the text only when a
 *   server without a manifest asks for it;
 * - `Accept-Language`: the console's language, not the browser's, so that the API's messages (which
 *   the console shows as they come) are in the language of the page around them.
 */
export function createClient(session: Session): ApolloClient {
  const persisted = new PersistedQueryLink({ generateHash: hashOf });
  const http = new HttpLink({ uri: '/graphql', print: textOf });
  const language = new ApolloLink((operation, forward) => {
    operation.setContext(({ headers }: { headers?: Record<string, string> }) => ({ headers: { ...headers, 'accept-language': localeStore.current() } }));
    return forward(operation);
  });
  return new ApolloClient({
    link: ApolloLink.from([language, authLink({ store: session.store, exchange: session.exchange, earlyMs: 5_000 }), persisted, http]),
    cache: new InMemoryCache(),
    defaultOptions: { watchQuery: { fetchPolicy: 'network-only' } },
  });
}
