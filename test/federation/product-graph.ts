// The product's graph composed from its subgraphs with a real composer, The Guild's
// @theguild/federation-composition (MIT; the validation rules and messages of Apollo's
// @apollo/composition, which is under the Elastic License 2.0).
import { composeServices } from '@theguild/federation-composition';
import { parse } from 'graphql';

export interface Subgraph {
  name: string;
  /** Where the gateway sends the subgraph's part of a query. */
  url: string;
  sdl: string;
}

/**
 * The supergraph SDL of `subgraphs`, or an Error whose message lists every message of the composer.
 * (This composer reports no hints: what Apollo's would only hint at is no error here either.)
 */
export function composeProductGraph(subgraphs: Subgraph[]): string {
  const result = composeServices(subgraphs.map(({ name, url, sdl }) => ({ name, url, typeDefs: parse(sdl) })));
  if (result.errors) {
    const messages = result.errors.map((e) => `  - ${e.message}${e.extensions?.code ? ` (${String(e.extensions.code)})` : ''}`);
    throw new Error(`composition failed:\n${messages.join('\n')}`);
  }
  return result.supergraphSdl;
}

/** Where the docker-compose `gateway` profile's supergraph finds this service: behind its balancer. */
const COMPOSE_ACCOUNTS_URL = 'http://balancer/graphql';

/**
 * The supergraph the docker-compose `gateway` profile mounts (gateway/supergraph.graphql): this
 * service's subgraph (schema/subgraph.graphql) alone, named `accounts`.
 */
export function dockerComposeSupergraph(accountsSdl: string): string {
  return `${composeProductGraph([{ name: 'accounts', url: COMPOSE_ACCOUNTS_URL, sdl: accountsSdl }]).trimEnd()}\n`;
}
