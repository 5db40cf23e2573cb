import { Router } from 'express';
import type { PhoneChangeJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { PhoneChangeCodeSchema, StartPhoneChangeSchema, VerifyAccountSchema } from './phone-change.inputs.js';
import type { PhoneChangeView } from './phone-change.view.js';

/** The signed-in user's phone change, under /users (API.md 10.1). */
export function phoneChangeRoutes({ phoneChanges, authenticator }: Services): Router {
  const router = Router();
  const signedIn = requireAuth(authenticator);
  router.get('/me/phone-change', signedIn, async (_req, res) => {
    res.json(phoneChangeToJson(await phoneChanges.current(principalOf<Principal>(res))));
  });
  router.post('/me/phone-change', signedIn, async (req, res) => {
    const { phone } = parseInput(StartPhoneChangeSchema, req.body);
    res.status(201).json(phoneChangeToJson(await phoneChanges.start(principalOf<Principal>(res), phone, clientInfo(req))));
  });
  router.post('/me/phone-change/verify-new', signedIn, async (req, res) => {
    const { code } = parseInput(PhoneChangeCodeSchema, req.body);
    res.json(phoneChangeToJson(await phoneChanges.verifyNew(principalOf<Principal>(res), code, clientInfo(req))));
  });
  router.post('/me/phone-change/send-current-code', signedIn, async (req, res) => {
    res.json(phoneChangeToJson(await phoneChanges.sendCurrentCode(principalOf<Principal>(res), clientInfo(req))));
  });
  router.post('/me/phone-change/verify-account', signedIn, async (req, res) => {
    const proof = parseInput(VerifyAccountSchema, req.body);
    res.json(phoneChangeToJson(await phoneChanges.verifyAccount(principalOf<Principal>(res), proof, clientInfo(req))));
  });
  router.post('/me/phone-change/wait', signedIn, async (req, res) => {
    res.json(phoneChangeToJson(await phoneChanges.wait(principalOf<Principal>(res), clientInfo(req))));
  });
  router.delete('/me/phone-change', signedIn, async (req, res) => {
    await phoneChanges.cancel(principalOf<Principal>(res), clientInfo(req));
    res.status(204).end();
  });
  return router;
}

/** A change as REST answers it (the operators' route answers the same shape). */
export function phoneChangeToJson(change: PhoneChangeView): PhoneChangeJson {
  return {
    id: change.id,
    phone: change.phone,
    status: change.status,
    newPhoneProven: change.newPhoneProven,
    accountProven: change.accountProven,
    appliesAt: change.appliesAt?.toISOString() ?? null,
    createdAt: change.createdAt.toISOString(),
  };
}
