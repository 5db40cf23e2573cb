import { Router } from 'express';
import type { Services } from '../../services.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { SessionJson } from '../../openapi/shapes.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import type { Principal } from '../auth/authenticator.js';
import type { SessionView } from '../auth/sessions.js';
import { ChangePasswordSchema, DeleteAccountSchema, UpdateProfileSchema } from './account.inputs.js';
import { userToJson } from './user.rest.js';

function sessionToJson(session: SessionView): SessionJson {
  return { ...session, createdAt: session.createdAt.toISOString(), lastUsedAt: session.lastUsedAt.toISOString() };
}

/**
 * /users/me and the signed-in user's self-service. Authentication is per route, not `router.use`,
 * so that this router can come first under /users: GET /users/me, the hottest authenticated route,
 * is then answered without passing through routers that do not serve it (Express leaves each of
 * those with a setImmediate hop).
 */
export function accountRoutes(services: Services): Router {
  const { selfService } = services;
  const router = Router();
  const auth = requireAuth(services.authenticator);
  router.get('/me', auth, (_req, res) => {
    res.json(userToJson(principalOf<Principal>(res).user));
  });
  router.patch('/me', auth, async (req, res) => {
    const { nickname } = parseInput(UpdateProfileSchema, req.body);
    res.json(userToJson(await selfService.updateProfile(principalOf<Principal>(res), nickname)));
  });
  router.put('/me/password', auth, async (req, res) => {
    await selfService.changePassword(principalOf<Principal>(res), parseInput(ChangePasswordSchema, req.body), clientInfo(req));
    res.status(204).end();
  });
  router.get('/me/sessions', auth, async (_req, res) => {
    res.json((await selfService.listSessions(principalOf<Principal>(res))).map(sessionToJson));
  });
  router.delete('/me/sessions/:id', auth, async (req, res) => {
    await selfService.revokeSession(principalOf<Principal>(res), req.params.id as string);
    res.status(204).end();
  });
  router.delete('/me', auth, async (req, res) => {
    await selfService.deleteAccount(principalOf<Principal>(res), parseInput(DeleteAccountSchema, req.body).code);
    res.status(204).end();
  });
  return router;
}
