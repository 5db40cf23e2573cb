// Hive Gateway in front of the product's graph: every request needs an access token of the accounts
// service, verified here by the service's public keys (its JWKS), and the token goes on to every
// subgraph, which checks it again itself. The `gateway` profile of docker-compose.yml mounts this file
// and supergraph.graphql into the Hive Gateway image; test/federation/gateway.test.ts runs this very
// file over the service and a meetings subgraph. Environment: ACCOUNTS_JWKS_URL, and JWT_ISSUER and
// JWT_AUDIENCE when the service's differ from its defaults.
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

export const gatewayConfig = defineConfig({
  supergraph: './supergraph.graphql',
  jwt: {
    tokenLookupLocations: [extractFromHeader({ name: 'authorization', prefix: 'Bearer' })],
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
});
