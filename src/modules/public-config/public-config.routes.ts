import { Router } from 'express';
import type { PublicConfigJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';

export function publicConfigRoutes({ publicConfig }: Services): Router {
  return Router().get('/config', (_req, res) => {
    const json: PublicConfigJson = publicConfig.get();
    res.json(json);
  });
}
