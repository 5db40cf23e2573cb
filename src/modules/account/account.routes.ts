import { Router } from 'express';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../auth/auth.routes.js';
import { userToJson } from './user.view.js';

export function accountRoutes(services: Services): Router {
  const router = Router();
  router.use(requireAuth(services));
  router.get('/me', (_req, res) => {
    res.json(userToJson(principalOf(res).user));
  });
  return router;
}
