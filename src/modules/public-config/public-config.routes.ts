import { Router } from 'express';
import type { Services } from '../../services.js';

export function publicConfigRoutes({ publicConfig }: Services): Router {
  return Router().get('/config', (_req, res) => {
    res.json(publicConfig.get());
  });
}
