import { describe, expect, it, jest } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { sequence } from '../../src/shared/http/sequence.js';

/** Runs `handler` on a stand-in request and resolves with what it passed to next(). */
function run(handler: RequestHandler, req: Partial<Request> = {}, res: Partial<Response> = {}): Promise<unknown> {
  return new Promise((resolve) => handler(req as Request, res as Response, (error?: unknown) => resolve(error ?? 'next')));
}

describe('sequence', () => {
  it('runs the handlers in order, then calls next once', async () => {
    const order: number[] = [];
    const step =
      (n: number): RequestHandler =>
      (_req, _res, next) => {
        order.push(n);
        next();
      };
    expect(await run(sequence(step(1), step(2), step(3)))).toBe('next');
    expect(order).toEqual([1, 2, 3]);
  });

  it('stops at a handler that answers without calling next', async () => {
    const after = jest.fn();
    const handler = sequence((_req, _res, _next) => undefined, after as unknown as RequestHandler);
    let nextCalled = false;
    handler({} as Request, {} as Response, () => (nextCalled = true));
    await new Promise((r) => setImmediate(r));
    expect({ nextCalled, after: after.mock.calls.length }).toEqual({ nextCalled: false, after: 0 });
  });

  it('ends with the error a handler passes to next, throws, or rejects with, skipping the rest', async () => {
    const boom = new Error('boom');
    const never: RequestHandler = () => {
      throw new Error('must not run');
    };
    expect(await run(sequence((_req, _res, next) => next(boom), never))).toBe(boom);
    expect(
      await run(
        sequence(() => {
          throw boom;
        }, never),
      ),
    ).toBe(boom);
    expect(await run(sequence(async () => Promise.reject(boom), never))).toBe(boom);
  });

  it('keeps the async context a handler opens for the ones after it', async () => {
    const store = new AsyncLocalStorage<string>();
    let seen: string | undefined;
    await run(
      sequence(
        (_req, _res, next) => store.run('request-1', next),
        (_req, _res, next) => {
          seen = store.getStore();
          next();
        },
      ),
    );
    expect(seen).toBe('request-1');
  });
});
