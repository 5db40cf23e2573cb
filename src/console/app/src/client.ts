import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { from, mergeMap, of } from 'rxjs';
import { hashOf, textOf } from './persisted';
import type { Session } from './session';

const unauthenticated = (result: ApolloLink.Result) => (result.errors ?? []).some((error) => error.extensions?.code === 'UNAUTHENTICATED');

/**
 * Apollo Client for /graphql, this origin only:
 * - the bearer token of the session on every request but the session's own (`context.anonymous`),
 *   and once more after a refresh when the API answers UNAUTHENTICATED (an access token that
 *   expired while a tab slept);
 * - documents sent by their SHA-256 (the console's trusted-documents manifest), the text only when a
 *   server without a manifest asks for it.
 */
export function createClient(session: Session): ApolloClient {
  const auth = new ApolloLink((operation, forward) => {
    if (operation.getContext().anonymous) return forward(operation);
    const withToken = (token: string | undefined) => {
      operation.setContext(({ headers }: { headers?: Record<string, string> }) => ({
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      }));
      return forward(operation);
    };
    return from(session.accessToken()).pipe(
      mergeMap((token) =>
        withToken(token).pipe(
          mergeMap((result) =>
            unauthenticated(result)
              ? from(session.afterRefusal(token)).pipe(mergeMap((fresh) => (fresh ? withToken(fresh) : of(result))))
              : of(result),
          ),
        ),
      ),
    );
  });
  const persisted = new PersistedQueryLink({ generateHash: hashOf });
  const http = new HttpLink({ uri: '/graphql', print: textOf });
  return new ApolloClient({
    link: ApolloLink.from([auth, persisted, http]),
    cache: new InMemoryCache(),
    defaultOptions: { watchQuery: { fetchPolicy: 'network-only' } },
  });
}
