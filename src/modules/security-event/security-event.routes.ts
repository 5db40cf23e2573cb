import { Router } from 'express';
import type { SecurityEventListJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { SecurityEventsQuerySchema } from './security-event.inputs.js';
import type { SecurityEventList } from './security-event.service.js';

export function securityEventListToJson({ items, nextCursor }: SecurityEventList): SecurityEventListJson {
  return { items: items.map(({ node }) => ({ ...node, at: node.at.toISOString() })), nextCursor };
}

/** GET /users/me/security-events?cursor=&limit=: the signed-in user's events, newest first. */
export function securityEventRoutes({ authenticator, securityEvents }: Services): Router {
  return Router().get('/me/security-events', requireAuth(authenticator), async (req, res) => {
    const page = parseInput(SecurityEventsQuerySchema, req.query);
    res.json(securityEventListToJson(await securityEvents.list(principalOf<Principal>(res).userId, page)));
  });
}
