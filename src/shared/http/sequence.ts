import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs `handlers` one after the other as a single middleware. Every router layer costs a path match,
 * a prefix trim and a few allocations per request; the handlers that every request passes through
 * are mounted as one layer. A handler that throws or rejects ends the sequence with that error, as
 * Express would.
 */
export function sequence(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error || index === handlers.length) return done(error);
      const handler = handlers[index++]!;
      try {
        const result: unknown = handler(req, res, next);
        if (result instanceof Promise) result.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
