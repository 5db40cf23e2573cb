import type { RequestHandler, Response } from 'express';

/** Turns an `Authorization` header into the caller, or throws UNAUTHENTICATED. */
export interface BearerAuthenticator<P> {
  authenticate(authorization: string | undefined): Promise<P>;
}

/** REST guard: puts the caller in `res.locals.principal` or fails with UNAUTHENTICATED. */
export function requireAuth<P>(authenticator: BearerAuthenticator<P>): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await authenticator.authenticate(req.get('authorization'));
    next();
  };
}

/** The caller `requireAuth` authenticated for this response. */
export function principalOf<P>(res: Response): P {
  return res.locals.principal as P;
}
