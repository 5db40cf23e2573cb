// A real OpenID Provider for the tests of sign-in with external identity providers: oidc-provider
// (panva, OpenID certified) on 127.0.0.1 in the test process, behind a thin front of its own that
// applies the outages a test switches on and swaps in a new Provider instance (same issuer, clients,
// accounts and state) when the signing key rotates. Discovery, JWKS, authorization and token
// endpoints are oidc-provider's own.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { providerConfiguration, type AccountClaims, type ProviderClient } from './provider-config.js';
import { authorizationRequest, issueIdToken, type AuthorizationOptions, type AuthorizationRequest, type IdTokenOptions, type IssuedIdToken } from './provider-flow.js';
import { generateSigningKey, type SigningAlg, type SigningKey } from './provider-keys.js';
import { INTERACTION, interactionPage } from './provider-pages.js';
import { memoryStore } from './provider-store.js';

/**
 * An outage of the provider, switched on and off while it runs:
 * - `down`: nothing listens on its port (connection refused), open connections closed;
 * - `error500`: every request answered 500;
 * - `hang`: every request accepted and never answered (dropped when the fault changes);
 * - `jwksWithoutKey`: its JWKS without the current signing key (every other answer as usual).
 */
type ProviderFault = 'down' | 'error500' | 'hang' | 'jwksWithoutKey';

export interface ProviderOptions {
  clients: ProviderClient[];
  /** Who can sign in, by sub (typed at the login page), with their claims. */
  accounts: Record<string, AccountClaims>;
  /** A free port unless given (a stopped provider's, to start it again under the same issuer). */
  port?: number;
  /** The algorithm of the key made when `keys` is not given: RS256 unless given. */
  alg?: SigningAlg;
  /** The signing keys, the current one first (by default one new key). */
  keys?: SigningKey[];
  /** Seconds from iat to exp of its ID tokens; 3600 unless given. */
  idTokenTtl?: number;
}

export interface TestProvider {
  /** `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  readonly port: number;
  /** The keys of its JWKS with their private halves, the current signing key first. */
  readonly keys: readonly SigningKey[];
  readonly clients: readonly ProviderClient[];
  readonly fault: ProviderFault | undefined;
  /** `METHOD /path` of every request that reached it, faults included, oldest first. */
  readonly requests: readonly string[];
  /** Errors of the provider itself (a server_error it answered, a page that failed): none unless the harness is wrong. */
  readonly serverErrors: readonly unknown[];
  /** Switches to `fault`, or back to normal with undefined; resolves once it is in effect. */
  setFault(fault: ProviderFault | undefined): Promise<void>;
  /** Signs with a new key (new kid, same alg) from now on; the JWKS keeps the old keys unless `keepPrevious` is false. */
  rotateKey(options?: { keepPrevious?: boolean }): Promise<SigningKey>;
  /** An authorization request (S256 PKCE) of one of its clients, to open in a browser. */
  authorizationRequest(options: AuthorizationOptions): AuthorizationRequest;
  /** An ID token it issues to `clientId` for `sub`, by the authorization-code flow without a browser. */
  issueIdToken(options: IdTokenOptions): Promise<IssuedIdToken>;
  stop(): Promise<void>;
}

async function listen(server: Server, port: number): Promise<number> {
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** Starts the provider on 127.0.0.1 and resolves once it answers. */
export async function startProvider(options: ProviderOptions): Promise<TestProvider> {
  const shared = {
    clients: options.clients,
    accounts: options.accounts,
    idTokenTtl: options.idTokenTtl ?? 3600,
    cookieKeys: [randomBytes(32).toString('base64url')],
    adapter: memoryStore(),
  };
  let keys: SigningKey[] = options.keys ?? [await generateSigningKey(options.alg)];
  let fault: ProviderFault | undefined;
  let stopped = false;
  const requests: string[] = [];
  const serverErrors: unknown[] = [];
  const held = new Set<ServerResponse>();
  const release = () => {
    for (const res of held) res.destroy();
  };

  const build = (issuer: string) => {
    const provider = new Provider(issuer, providerConfiguration({ ...shared, keys }));
    provider.on('server_error', (_ctx: unknown, error: unknown) => serverErrors.push(error));
    provider.use(async (ctx, next) => {
      await next();
      if (fault === 'jwksWithoutKey' && (ctx as KoaContextWithOIDC).oidc?.route === 'jwks') {
        const { keys: listed } = ctx.body as { keys: { kid: string }[] };
        ctx.body = { keys: listed.filter((key) => key.kid !== keys[0]!.kid) };
        ctx.type = 'application/jwk-set+json; charset=utf-8';
      }
    });
    return { provider, handle: provider.callback() };
  };

  const page = (req: IncomingMessage, res: ServerResponse) =>
    interactionPage(current.provider, (sub) => Object.hasOwn(options.accounts, sub), req, res).catch((error: unknown) => {
      // An interaction whose cookie is missing or expired is the user agent's problem, as at any provider.
      const expected = error instanceof Error && error.name === 'SessionNotFound';
      if (!expected) serverErrors.push(error);
      if (!res.headersSent) res.writeHead(expected ? 400 : 500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://op').pathname;
    requests.push(`${req.method} ${path}`);
    if (fault === 'error500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
    if (fault === 'hang') {
      held.add(res);
      res.on('close', () => held.delete(res));
      return;
    }
    if (INTERACTION.test(path)) return void page(req, res);
    current.handle(req, res);
  });
  const port = await listen(server, options.port ?? 0);
  const issuer = `http://127.0.0.1:${port}`;
  let current = build(issuer);

  const close = async () => {
    release();
    server.close();
    server.closeAllConnections();
    await once(server, 'close');
    // One turn of the event loop, so that a client in this process (the service under test) sees its
    // kept-alive connections closed and opens a new one, refused, rather than writing to a dead one.
    await new Promise((resolve) => setImmediate(resolve));
  };

  const op: TestProvider = {
    issuer,
    port,
    get keys() {
      return keys;
    },
    clients: options.clients,
    get fault() {
      return fault;
    },
    requests,
    serverErrors,
    async setFault(next) {
      if (stopped) throw new Error(`the test provider at ${issuer} is stopped`);
      const previous = fault;
      fault = next;
      release();
      if (next === 'down' && previous !== 'down') await close();
      if (previous === 'down' && next !== 'down') await listen(server, port);
    },
    async rotateKey({ keepPrevious = true } = {}) {
      const key = await generateSigningKey(keys[0]!.alg);
      keys = keepPrevious ? [key, ...keys] : [key];
      current = build(issuer);
      return key;
    },
    authorizationRequest: (request) => authorizationRequest(op, request),
    issueIdToken: (request) => issueIdToken(op, request),
    async stop() {
      stopped = true;
      if (server.listening) await close();
    },
  };
  return op;
}
