import { Router } from 'express';
import type { AdminUserJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { Role } from '../account/role.js';
import { userToJson } from '../account/user.rest.js';
import { BlockUserSchema, SetRoleSchema } from './admin.inputs.js';
import type { AdminUserView } from './admin.service.js';

function adminUserToJson(user: AdminUserView): AdminUserJson {
  return {
    ...userToJson(user),
    status: user.status,
    blockedAt: user.blockedAt?.toISOString() ?? null,
    blockedReason: user.blockedReason,
    activeSessions: user.activeSessions,
  };
}

/** The operators' routes, under /admin; each checks the caller's role (AdminService.authorize). */
export function adminRoutes({ admin, authenticator }: Services): Router {
  const router = Router();
  // On each route rather than the router, so that a path parameter that is not valid
  // percent-encoding is refused as malformed (400) before the caller is asked who they are.
  const signedIn = requireAuth(authenticator);
  const id = (params: Record<string, string | string[] | undefined>) => params.id as string;
  router.get('/users/:id', signedIn, async (req, res) => {
    res.json(adminUserToJson(await admin.user(principalOf<Principal>(res), id(req.params))));
  });
  router.post('/users/:id/sessions/revoke', signedIn, async (req, res) => {
    await admin.revokeSessions(principalOf<Principal>(res), id(req.params), clientInfo(req));
    res.status(204).end();
  });
  // The role before the body: a caller without it learns FORBIDDEN, not what the body should hold.
  router.post('/users/:id/block', signedIn, async (req, res) => {
    admin.authorize(principalOf<Principal>(res), Role.ADMIN);
    const { reason } = parseInput(BlockUserSchema, req.body);
    res.json(adminUserToJson(await admin.block(principalOf<Principal>(res), id(req.params), reason, clientInfo(req))));
  });
  router.put('/users/:id/role', signedIn, async (req, res) => {
    admin.authorize(principalOf<Principal>(res), Role.ADMIN);
    const { role } = parseInput(SetRoleSchema, req.body);
    res.json(adminUserToJson(await admin.setRole(principalOf<Principal>(res), id(req.params), role, clientInfo(req))));
  });
  router.post('/users/:id/unblock', signedIn, async (req, res) => {
    res.json(adminUserToJson(await admin.unblock(principalOf<Principal>(res), id(req.params), clientInfo(req))));
  });
  return router;
}
