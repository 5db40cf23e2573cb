import { Router, type Request, type Response } from 'express';
import type { AdminUserJson, AdminUserListJson, AuditLogJson, WebhookDeliveryJson, WebhookDeliveryListJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import type { Paged } from '../../shared/pagination.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { Role } from '../account/role.js';
import { userToJson } from '../account/user.rest.js';
import { identityToJson } from '../identity/identity.routes.js';
import type { AuditEntryView } from '../audit/audit-log.service.js';
import { SecurityEventsQuerySchema } from '../security-event/security-event.inputs.js';
import { securityEventListToJson } from '../security-event/security-event.routes.js';
import { sessionToJson } from '../session/session.routes.js';
import type { WebhookDeliveryView } from '../webhook/webhook.service.js';
import { phoneChangeToJson } from '../phone-change/phone-change.routes.js';
import { AuditLogQuerySchema, BlockUserSchema, ChangePhoneSchema, DeliveryIdSchema, SetRoleSchema, UserIdSchema, UserSearchQuerySchema, WebhookDeliveriesQuerySchema } from './admin.inputs.js';
import type { AdminUserView } from './admin.service.js';

function adminUserToJson(user: AdminUserView): AdminUserJson {
  return {
    ...userToJson(user),
    status: user.status,
    blockedAt: user.blockedAt?.toISOString() ?? null,
    blockedReason: user.blockedReason,
    activeSessions: user.activeSessions,
    mfaEnabled: user.mfaEnabled,
    passkeys: user.passkeys,
    identities: user.identities.map(identityToJson),
    pendingPhoneChange: user.pendingPhoneChange && phoneChangeToJson(user.pendingPhoneChange),
  };
}

function userListToJson({ items, nextCursor }: Paged<AdminUserView>): AdminUserListJson {
  return { items: items.map(({ node }) => adminUserToJson(node)), nextCursor };
}

function auditLogToJson({ items, nextCursor }: Paged<AuditEntryView>): AuditLogJson {
  return { items: items.map(({ node }) => ({ ...node, at: node.at.toISOString() })), nextCursor };
}

function deliveryToJson(delivery: WebhookDeliveryView): WebhookDeliveryJson {
  return {
    ...delivery,
    nextAttemptAt: delivery.nextAttemptAt.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
  };
}

function deliveryListToJson({ items, nextCursor }: Paged<WebhookDeliveryView>): WebhookDeliveryListJson {
  return { items: items.map(({ node }) => deliveryToJson(node)), nextCursor };
}

/**
 * The operators' routes, under /admin; each checks the caller's role (AdminService.authorize), and
 * checks it before the path, query or body: a caller without the role learns FORBIDDEN, not what the
 * request should hold. The id of the path is made canonical here (UserIdSchema), once.
 */
export function adminRoutes({ admin, authenticator }: Services): Router {
  const router = Router();
  // On each route rather than the router, so that a path parameter that is not valid
  // percent-encoding is refused as malformed (400) before the caller is asked who they are.
  const signedIn = requireAuth(authenticator);
  const caller = (res: Parameters<typeof principalOf>[0]) => principalOf<Principal>(res);
  /** The caller, once its role is `needed`, and the account the path names. */
  const onUser = (req: Request, res: Response, needed: Role.SUPPORT | Role.ADMIN) => {
    const principal = caller(res);
    admin.authorize(principal, needed);
    return { principal, id: parseInput(UserIdSchema, req.params).id };
  };

  router.get('/users', signedIn, async (req, res) => {
    admin.authorize(caller(res), Role.SUPPORT);
    res.json(userListToJson(await admin.search(caller(res), parseInput(UserSearchQuerySchema, req.query), clientInfo(req))));
  });
  router.get('/users/:id', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.SUPPORT);
    res.json(adminUserToJson(await admin.user(principal, id, clientInfo(req))));
  });
  router.get('/users/:id/sessions', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.SUPPORT);
    res.json((await admin.sessions(principal, id, clientInfo(req))).map(sessionToJson));
  });
  router.get('/users/:id/security-events', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.SUPPORT);
    const page = parseInput(SecurityEventsQuerySchema, req.query);
    res.json(securityEventListToJson(await admin.securityEvents(principal, id, page, clientInfo(req))));
  });
  router.post('/users/:id/sessions/revoke', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.SUPPORT);
    await admin.revokeSessions(principal, id, clientInfo(req));
    res.status(204).end();
  });
  router.post('/users/:id/block', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.ADMIN);
    const { reason } = parseInput(BlockUserSchema, req.body);
    res.json(adminUserToJson(await admin.block(principal, id, reason, clientInfo(req))));
  });
  router.post('/users/:id/unblock', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.ADMIN);
    res.json(adminUserToJson(await admin.unblock(principal, id, clientInfo(req))));
  });
  router.put('/users/:id/role', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.ADMIN);
    const { role } = parseInput(SetRoleSchema, req.body);
    res.json(adminUserToJson(await admin.setRole(principal, id, role, clientInfo(req))));
  });
  router.post('/users/:id/phone', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.ADMIN);
    const { phone, reason } = parseInput(ChangePhoneSchema, req.body);
    res.status(201).json(phoneChangeToJson(await admin.changePhone(principal, id, phone, reason, clientInfo(req))));
  });
  router.delete('/users/:id', signedIn, async (req, res) => {
    const { principal, id } = onUser(req, res, Role.ADMIN);
    await admin.delete(principal, id, clientInfo(req));
    res.status(204).end();
  });
  router.get('/audit-log', signedIn, async (req, res) => {
    admin.authorize(caller(res), Role.ADMIN);
    res.json(auditLogToJson(await admin.auditLog(caller(res), parseInput(AuditLogQuerySchema, req.query))));
  });
  router.get('/webhook-deliveries', signedIn, async (req, res) => {
    admin.authorize(caller(res), Role.ADMIN);
    res.json(deliveryListToJson(await admin.webhookDeliveries(caller(res), parseInput(WebhookDeliveriesQuerySchema, req.query))));
  });
  router.post('/webhook-deliveries/:id/retry', signedIn, async (req, res) => {
    admin.authorize(caller(res), Role.ADMIN);
    const { id } = parseInput(DeliveryIdSchema, req.params);
    res.json(deliveryToJson(await admin.retryWebhookDelivery(caller(res), id, clientInfo(req))));
  });
  return router;
}
