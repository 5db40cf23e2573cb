import { Router, type RequestHandler } from 'express';
import type { UserStatsJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { msg } from '../../shared/errors/app-error.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { internalKeyCheck } from '../../shared/internal-key.js';
import { unauthenticated } from '../../shared/tokens/access-token.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import type { UserStats } from './stats.service.js';
import { MeetingUsageSchema } from './usage.inputs.js';

export function statsRoutes(services: Services): Router {
  return Router().get('/me/stats', requireAuth(services.authenticator), async (_req, res) => {
    res.json(statsToJson(await services.stats.forUser(principalOf<Principal>(res).userId)));
  });
}

/** Plain JSON for REST: ISO-8601 timestamps. */
function statsToJson(stats: UserStats): UserStatsJson {
  return {
    ...stats,
    lastLoginAt: stats.lastLoginAt?.toISOString() ?? null,
    memberSince: stats.memberSince.toISOString(),
    lastMeetingAt: stats.lastMeetingAt?.toISOString() ?? null,
  };
}

/** Service-to-service routes, behind X-Internal-Key; absent (404) when no key is configured. */
export function internalRoutes(services: Services, internalApiKey: string | undefined): Router {
  const router = Router();
  if (!internalApiKey) return router;
  router.use(requireInternalKey(internalApiKey));
  router.post('/meeting-usage', async (req, res) => {
    await services.usage.record(parseInput(MeetingUsageSchema, req.body));
    res.status(204).end();
  });
  return router;
}

function requireInternalKey(key: string): RequestHandler {
  const isRight = internalKeyCheck(key);
  return (req, _res, next) => {
    const presented = req.get('x-internal-key');
    if (!isRight(presented)) throw unauthenticated(presented ? 'invalid' : 'missing', msg('internal.keyRequired'));
    next();
  };
}
