// Hive Gateway in front of the product's graph: every request needs an access token of the accounts
// service, verified here by the service's public keys (its JWKS), and the token goes on to every
// subgraph, which checks it again itself. The `gateway` profile of docker-compose.yml mounts this file
// and supergraph.graphql into the Hive Gateway image; test/federation/gateway.test.ts runs this very
// file over the service and a meetings subgraph, and test/federation/gateway-subscriptions.test.ts
// its subscriptions. Environment: ACCOUNTS_JWKS_URL, and JWT_ISSUER and JWT_AUDIENCE when the
// service's differ from its defaults.
import { generateKeyPairSync } from 'node:crypto';
import { createRemoteJwksSigningKeyProvider, defineConfig, extractFromHeader } from '@graphql-hive/gateway';

const env = (name, fallback) => process.env[name] || fallback;

const jwks = createRemoteJwksSigningKeyProvider({
  jwksUri: env('ACCOUNTS_JWKS_URL', 'http://balancer/.well-known/jwks.json'),
  // As long as the service lets its JWKS be cached; a token naming a key not seen yet (one added by
  // rotation) fetches the set again, at most ten times a minute.
  cache: true,
  cacheMaxAge: 300_000,
  rateLimit: true,
  jwksRequestsPerMinute: 10,
  timeout: 5_000,
});
// A public key whose private half nobody has: a token naming a key the service does not publish is
// checked against it and refused (401) like any bad signature, where the JWT plugin alone would fail
// the request (500) and log an error. The JWKS out of reach still fails the request (5xx, not 401).
const NO_SUCH_KEY = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' });
const signingKey = (kid) =>
  jwks(kid).catch((error) => {
    if (error?.name === 'SigningKeyNotFoundError') return NO_SUCH_KEY;
    throw error;
  });
// A subscription over WebSocket has no Authorization header: its client sends the header's value in
// connection_init's payload, `{ "authorization": "Bearer …" }`, as it would to the service itself.
const fromConnectionParams = ({ serverContext }) => {
  const [prefix, token] = String(serverContext?.connectionParams?.authorization ?? '').split(' ');
  return prefix === 'Bearer' && token ? { prefix, token } : undefined;
};
// The service ends a subscription whose session ended, after the event that ended it, by closing the
// socket it came on 4401. The gateway's client of that socket ends the subscription with the close
// event, which the gateway would pass on as an error with neither message nor code, the client's own
// socket left open. Instead that socket (the CLI puts it in a WebSocket operation's context) closes
// 4401, as the service's would: every subscription on it has the one token of its connection_init. A
// subscription over HTTP ends with the service's error for a request of an ended session.
const SESSION_ENDED = { message: 'The session has ended; sign in again', extensions: { code: 'UNAUTHENTICATED', reason: 'session_ended' } };
// (Not an async generator: one waiting for the next event would not pass a client's unsubscribe on
// to the service until that event came.)
function untilSessionEnds(results, socket) {
  const source = results[Symbol.asyncIterator]();
  const end = { done: true, value: undefined };
  let ended = false;
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () =>
      ended
        ? Promise.resolve(end)
        : source.next().catch((error) => {
            if (error?.code !== 4401) throw error;
            ended = true;
            if (!socket) return { done: false, value: { errors: [SESSION_ENDED] } };
            socket.close(4401, 'Unauthorized');
            return end;
          }),
    return: (value) => source.return?.(value) ?? Promise.resolve(end),
  };
}
const sessionEnds = {
  onSubgraphExecute: ({ executionRequest }) => ({ result, setResult }) => {
    if (result?.[Symbol.asyncIterator]) setResult(untilSessionEnds(result, executionRequest.context?.socket));
  },
};

export const gatewayConfig = defineConfig({
  supergraph: './supergraph.graphql',
  jwt: {
    tokenLookupLocations: [extractFromHeader({ name: 'authorization', prefix: 'Bearer' }), fromConnectionParams],
    signingKeyProviders: [signingKey],
    // The service signs ES256 (JWT_ALGORITHM=ES256); this verifier (jsonwebtoken) has no EdDSA.
    tokenVerification: {
      algorithms: ['ES256'],
      issuer: env('JWT_ISSUER', 'meeting-accounts'),
      audience: env('JWT_AUDIENCE', 'meeting-app'),
    },
    // No token, or one that does not verify: refused here, before any subgraph is asked.
    reject: { missingToken: true, invalidToken: true },
    // The subgraphs read the bearer token itself; claims sent beside the query in `extensions`
    // could not be told from a client's own, so none are.
    forward: { payload: false, token: false },
  },
  propagateHeaders: {
    fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }),
  },
  // Subscriptions go on to the service over WebSocket (graphql-ws), at its URL in the supergraph, with
  // the client's token in connection_init: from the header of a request, or from the client's own
  // connection_init, which the gateway reads as headers. One socket to the service per token.
  transportEntries: {
    accounts: {
      options: {
        subscriptions: { kind: 'ws', options: { connectionParams: { authorization: '{context.headers.authorization}' } } },
      },
    },
  },
  plugins: () => [sessionEnds],
});
