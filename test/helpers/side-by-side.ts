// Two servers of one build, one taking the lean paths past Express's router and one not
// (`fastPaths: false`): the same request to each must get the same answer, and the tests count
// which requests Express dispatched.
import { afterEach, beforeEach, expect } from '@jest/globals';
import type { TestServer } from './server.js';

export interface Sent {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Counts, for each server, the requests Express dispatched (its app.handle) whose path starts with
 * `prefix` (in any letter case), reset before each test.
 */
export function countDispatched(servers: TestServer[], prefix: string): Map<TestServer, number> {
  const dispatched = new Map<TestServer, number>();
  const restores: (() => void)[] = [];
  beforeEach(() => {
    for (const t of servers) {
      // Express's app function hands every request to app.handle (not in its typings).
      const app = t.server.express as unknown as { handle: (req: { url: string }, ...rest: unknown[]) => unknown };
      const handle = app.handle.bind(app);
      dispatched.set(t, 0);
      app.handle = (req, ...rest) => {
        if (req.url.toLowerCase().startsWith(prefix)) dispatched.set(t, dispatched.get(t)! + 1);
        return handle(req, ...rest);
      };
      restores.push(() => {
        app.handle = handle;
      });
    }
  });
  afterEach(() => {
    for (const restore of restores.splice(0)) restore();
  });
  return dispatched;
}

/** What a server answered, without what differs by nature between two servers and two requests. */
export async function answerOf(t: TestServer, { path, method, headers = {}, body }: Sent & { path: string; method: string }) {
  const res = await fetch(`${t.url}${path}`, { method, headers, body });
  const requestId = res.headers.get('x-request-id');
  const shown: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== 'date' && name !== 'x-request-id') shown[name] = value;
  });
  const text = await res.text();
  return { status: res.status, headers: shown, body: requestId ? text.replaceAll(requestId, '<request id>') : text, requestId: Boolean(requestId) };
}

/** Sends `request` (`defaults` for what it leaves out) to both servers and expects the same answer: the lean one's. */
export async function expectSameAnswers(lean: TestServer, plain: TestServer, request: Sent, defaults: { path: string; method: string }) {
  const sent = { ...defaults, ...request };
  const [fast, slow] = [await answerOf(lean, sent), await answerOf(plain, sent)];
  expect(fast).toEqual(slow);
  return fast;
}

/**
 * `expectSameAnswers` for each of `requests`, each answered with a request id, and each dispatched by
 * Express on the lean server (`throughExpress`) or not.
 */
export async function expectSamePaths(
  servers: { lean: TestServer; plain: TestServer; dispatched: Map<TestServer, number> },
  requests: Sent[],
  defaults: { path: string; method: string },
  throughExpress: boolean,
): Promise<void> {
  const { lean, plain, dispatched } = servers;
  for (const request of requests) {
    const before = dispatched.get(lean)!;
    const seen = await expectSameAnswers(lean, plain, request, defaults);
    expect({ request, requestId: seen.requestId, dispatched: dispatched.get(lean)! - before }).toEqual({ request, requestId: true, dispatched: throughExpress ? 1 : 0 });
  }
}
