import { Router } from 'express';
import type { Services } from '../../services.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import type { Principal } from './principal.js';
import { ChangePasswordSchema, DeleteAccountSchema, UpdateProfileSchema } from './account.inputs.js';
import { userToJson } from './user.rest.js';

/**
 * /users/me and the signed-in user's self-service. Authentication is per route, not `router.use`,
 * so that this router can come first under /users: GET /users/me, the hottest authenticated route,
 * is then answered without passing through routers that do not serve it (Express leaves each of
 * those with a setImmediate hop).
 */
export function accountRoutes({ accounts, authenticator }: Services): Router {
  const router = Router();
  const auth = requireAuth(authenticator);
  router.get('/me', auth, (_req, res) => {
    res.json(userToJson(principalOf<Principal>(res).user));
  });
  router.patch('/me', auth, async (req, res) => {
    res.json(userToJson(await accounts.updateProfile(principalOf<Principal>(res), parseInput(UpdateProfileSchema, req.body), clientInfo(req))));
  });
  router.put('/me/password', auth, async (req, res) => {
    await accounts.changePassword(principalOf<Principal>(res), parseInput(ChangePasswordSchema, req.body), clientInfo(req));
    res.status(204).end();
  });
  router.delete('/me', auth, async (req, res) => {
    await accounts.deleteAccount(principalOf<Principal>(res), parseInput(DeleteAccountSchema, req.body).code, clientInfo(req));
    res.status(204).end();
  });
  return router;
}
