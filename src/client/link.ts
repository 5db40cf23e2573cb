import { ApolloLink } from '@apollo/client';
import { from, mergeMap, of, type Observable } from 'rxjs';
import { apiErrorIn } from './errors.js';
import type { Exchange, TokenStore } from './tokens.js';

export interface AuthLinkOptions {
  store: TokenStore;
  /** How a refresh token is exchanged (`graphqlExchange` sends the `refreshToken` mutation). */
  exchange: Exchange;
  /** How long before its expiry an access token is renewed (default 30 s; timers sleep in background tabs). */
  earlyMs?: number;
}

/**
 * An Apollo Link that signs every operation with the store's access token, renewing it first when
 * it is about to expire, and once more when the API answers UNAUTHENTICATED with `reason: expired`
 * (a token that expired while the device slept) before it retries the operation. An answer with
 * `reason: session_ended` ends the store's session (sign in again). An operation whose context has
 * `anonymous: true` is sent without a token (a sign-in, a refresh).
 */
export function authLink({ store, exchange, earlyMs = 30_000 }: AuthLinkOptions): ApolloLink {
  const fresh = async (): Promise<string | undefined> => {
    await store.ready;
    const tokens = store.current();
    if (!tokens || tokens.expiresAt - Date.now() > earlyMs) return tokens?.accessToken;
    return (await renew(tokens.accessToken)) ?? store.current()?.accessToken;
  };
  // No answer from the service: the token in hand serves while it lasts, and the next request tries again.
  const renew = (seen: string): Promise<string | undefined> =>
    store.refresh(seen, exchange).then(
      (tokens) => tokens?.accessToken,
      () => undefined,
    );
  return new ApolloLink((operation, forward) => {
    if (operation.getContext().anonymous) return forward(operation);
    const send = (token: string | undefined): Observable<ApolloLink.Result> => {
      operation.setContext(({ headers }: { headers?: Record<string, string> }) => ({
        headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
      }));
      return forward(operation);
    };
    return from(fresh()).pipe(
      mergeMap((token) =>
        send(token).pipe(
          mergeMap((result) => {
            const refusal = apiErrorIn(result.errors);
            if (refusal?.code !== 'UNAUTHENTICATED' || !token) return of(result);
            const reason = (refusal.extensions as { reason?: string }).reason;
            if (reason === 'session_ended') return from(Promise.resolve(store.end('session_ended'))).pipe(mergeMap(() => of(result)));
            if (reason !== 'expired') return of(result);
            return from(renew(token)).pipe(mergeMap((next) => (next && next !== token ? send(next) : of(result))));
          }),
        ),
      ),
    );
  });
}
