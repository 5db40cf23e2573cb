import { Router } from 'express';
import type { SessionJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import type { Principal } from '../account/principal.js';
import { OwnIdSchema } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import type { SessionView } from './session.service.js';

export function sessionToJson(session: SessionView): SessionJson {
  return { ...session, createdAt: session.createdAt.toISOString(), lastUsedAt: session.lastUsedAt.toISOString() };
}

/** The signed-in user's sessions, under /users. */
export function sessionRoutes({ auth, authenticator, sessions }: Services): Router {
  const router = Router();
  const signedIn = requireAuth(authenticator);
  router.get('/me/sessions', signedIn, async (_req, res) => {
    const { userId, sessionId } = principalOf<Principal>(res);
    res.json((await sessions.listLive(userId, sessionId)).map(sessionToJson));
  });
  router.delete('/me/sessions/:id', signedIn, async (req, res) => {
    await auth.revokeSession(principalOf<Principal>(res), parseInput(OwnIdSchema, req.params).id, clientInfo(req));
    res.status(204).end();
  });
  return router;
}
