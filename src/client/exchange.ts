import type { Exchange, IssuedTokens } from './tokens.js';

export interface GraphQLExchangeOptions {
  /** The service's GraphQL endpoint (e.g. `https://accounts.example.com/graphql`). */
  uri: string;
  fetch?: typeof globalThis.fetch;
}

const REFRESH = 'mutation Refresh($refreshToken: String!) { refreshToken(refreshToken: $refreshToken) { accessToken refreshToken expiresIn } }';

/**
 * Exchanges a refresh token with the `refreshToken` mutation: the new tokens, or undefined when the
 * service refused it (UNAUTHENTICATED: the session has ended, sign in again). It rejects when there
 * was no answer, or another one (the store then keeps the session, and a later request tries again).
 * A service that runs with trusted documents only needs this document in its manifest.
 */
export function graphqlExchange({ uri, fetch = globalThis.fetch }: GraphQLExchangeOptions): Exchange {
  return async (refreshToken) => {
    const response = await fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body: JSON.stringify({ query: REFRESH, operationName: 'Refresh', variables: { refreshToken } }),
    });
    const body = (await response.json()) as { data?: { refreshToken?: IssuedTokens } | null; errors?: { extensions?: { code?: string } }[] };
    if (body.data?.refreshToken) return body.data.refreshToken;
    if (body.errors?.some((error) => error.extensions?.code === 'UNAUTHENTICATED')) return undefined;
    throw new Error(`The refresh was not answered (HTTP ${response.status})`);
  };
}
