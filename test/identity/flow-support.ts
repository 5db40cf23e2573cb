// What the tests of the service's sign-in through the test OpenID Provider share: a port chosen
// before the service starts (its callback URL is registered at the provider beforehand), the
// service's identity settings, a frontend page that records what it is sent, a user agent that walks
// the provider's pages without a browser, the identity operations on both transports, and the
// search for tokens in URLs and for the service's faults in its log.
import { afterAll, afterEach, beforeEach, expect } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpResult } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { cookieJar } from './provider-flow.js';
import type { TestProvider } from './provider.js';
import { FRONTEND, OIDC, providersEnv, type Binding } from './support.js';


/** The callback the service registers at a provider: `${publicUrl}/api/v1/auth/oidc/{id}/callback`. */
export const callbackOf = (publicUrl: string, providerId: string) => `${publicUrl}${OIDC}/${providerId}/callback`;

interface ServiceProvider {
  id: string;
  op: TestProvider;
  clientId: string;
  clientSecret?: string;
  responseMode?: 'query' | 'form_post';
}

/** The identity suites' settings (providersEnv) with PUBLIC_URL and OIDC_RETURN_URLS, for a service reached at `publicUrl`. */
export function identityEnv(publicUrl: string, providers: ServiceProvider[], returnUrls: string[]): Record<string, string> {
  const entries = providers.map(({ id, op, clientId, clientSecret, responseMode }) => ({
    id,
    name: `Test provider ${id}`,
    issuer: op.issuer,
    clientId,
    ...(clientSecret && { clientSecret }),
    ...(responseMode && { responseMode }),
  }));
  return { ...providersEnv(entries), PUBLIC_URL: publicUrl, OIDC_RETURN_URLS: returnUrls.join(',') };
}

export interface Frontend {
  /** `http://127.0.0.1:<port><path>`. */
  url(path: string): string;
  /** Every request it received, oldest first. */
  readonly visits: URL[];
  close(): Promise<void>;
}

/** The web application a flow returns to: answers every GET with a small page and records the URL. */
export async function startFrontend(): Promise<Frontend> {
  const visits: URL[] = [];
  const server: Server = createServer((req, res) => {
    visits.push(new URL(req.url ?? '/', `http://${req.headers.host}`));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Back at the app</title><h1>Back at the app</h1></html>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${origin}${path}`,
    visits,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/**
 * A user without a browser at the provider: from `url` (an authorization URL the service gave),
 * follows the redirects through the login page (as `login`) and the consent page to the first URL
 * under `until` (the service's callback), which it returns without requesting it, so that a test can
 * send it to whichever instance it picks, or change it first.
 */
export async function walkProvider(url: string, { login, until }: { login: string; until: string }): Promise<URL> {
  const request = cookieJar();
  let at = url;
  let response = await request(at);
  let pages = 0;
  for (let step = 0; step < 10; step++) {
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`the provider answered ${response.status} at ${at}: ${(await response.text()).slice(0, 300)}`);
    }
    const next = new URL(location, at);
    if (next.href.startsWith(until)) return next;
    at = next.href;
    if (next.pathname.startsWith('/interaction/')) {
      // The login page first, then the consent page; each is completed by a form post.
      pages += 1;
      response = await request(at, pages === 1 ? { login } : {});
    } else response = await request(at);
  }
  throw new Error(`the provider did not send the user to ${until} (last at ${at})`);
}

/** The query of a web flow's start: `?returnTo=`, and `&codeChallenge=` of `binding` (the suites' frontend's unless given; null: none). */
export function startQuery(returnTo: string, binding: Binding | null = FRONTEND): string {
  return `?${new URLSearchParams({ returnTo, ...(binding && { codeChallenge: binding.challenge }) })}`;
}

/**
 * `GET <path>?returnTo=` asking for JSON, as a script does (`{ url }` when it is 200). A sign-in is
 * bound (startQuery); a signed-in user's link flow (with `token`) is not, as its routes take no challenge.
 */
export function authorizeJson(t: TestServer, path: string, returnTo: string, { token, binding = token ? null : FRONTEND }: { token?: string; binding?: Binding | null } = {}): Promise<HttpResult> {
  return t.http.get(`${path}${startQuery(returnTo, binding)}`, { token, headers: { accept: 'application/json' } });
}

/**
 * A browser's navigation to `url` (Accept: text/html), its redirect not followed: the answer, its
 * body parsed when it is JSON (a problem document), for expectProblem.
 */
export async function navigate(url: string, token?: string): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { redirect: 'manual', headers });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: /json/.test(response.headers.get('content-type') ?? '') && text ? JSON.parse(text) : text };
}

/** The `result` (or `error`) a flow brought back to the frontend: its only query parameter. */
export function returnedTo(url: string | URL, returnTo: string): Record<string, string> {
  const back = new URL(url);
  expect(`${back.origin}${back.pathname}`).toBe(returnTo);
  return Object.fromEntries(back.searchParams);
}

const JWT = /eyJ[\w-]{8,}\.[\w-]{8,}\./;
const TOKEN_PARAMETERS = /[?&#](access_token|id_token|refresh_token|token|linkToken|link_token)=/i;

/**
 * No URL carries a token: nothing that looks like a JWT, no parameter named like one, and none of
 * `secrets` (the tokens the test obtained: access, refresh, link, ID tokens), raw or URL-encoded.
 */
export function expectNoTokenIn(urls: readonly string[], secrets: readonly string[]): void {
  expect(urls.length).toBeGreaterThan(0);
  for (const url of urls) {
    expect(url).not.toMatch(JWT);
    expect(url).not.toMatch(TOKEN_PARAMETERS);
    for (const secret of secrets) {
      expect(url).not.toContain(secret);
      expect(url).not.toContain(encodeURIComponent(secret));
    }
  }
}

/**
 * The service's own faults among its captured log lines (`captureLogs`): a line of error level or
 * above, or an answer of 5xx but 502 (a provider down, slow or wrong is the provider's fault).
 */
function serviceFaults(log: string): string[] {
  return log
    .split('\n')
    .filter(Boolean)
    .filter((line) => {
      const entry = JSON.parse(line) as { level?: number; res?: { status?: number } };
      const status = entry.res?.status ?? 0;
      return (entry.level ?? 0) >= 50 || (status >= 500 && status !== 502);
    });
}

/** The faults of the service written to `logs()` since the previous call (each test's own, called after each). */
function newServiceFaults(logs: () => string): () => string[] {
  let seen = 0;
  return () => {
    const log = logs();
    const faults = serviceFaults(log.slice(seen));
    seen = log.length;
    return faults;
  };
}

/**
 * The hooks of a suite that runs web flows against `servers` (one database): each test starts with no
 * flow or ticket of the one before, and ends with no fault logged by a server and no server error at
 * a provider; the providers and the frontend stop after the last test. `parts` names them once the
 * suite's beforeAll has started them.
 */
export function webFlowHooks(servers: TestServer[], parts: () => { providers: (TestProvider | undefined)[]; app: Frontend | undefined }): void {
  const faults = servers.map((t) => newServiceFaults(() => t.logs()));
  beforeEach(async () => {
    await servers[0]!.sql('delete from oidc_flows');
    await servers[0]!.sql('delete from identity_tickets');
  });
  afterEach(() => {
    for (const newFaults of faults) expect(newFaults()).toEqual([]);
    for (const op of parts().providers) expect(op!.serverErrors).toEqual([]);
  });
  afterAll(async () => {
    for (const op of parts().providers) await op?.stop();
    await parts().app?.close();
  });
}
