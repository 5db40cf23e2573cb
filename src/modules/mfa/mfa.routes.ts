import { Router } from 'express';
import type { MfaStatusJson, RecoveryCodesJson, TotpEnrollmentJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { MfaCodeSchema } from './mfa.inputs.js';

/** The signed-in user's second factors, under /users. */
export function mfaRoutes({ mfa, authenticator }: Services): Router {
  const router = Router();
  const signedIn = requireAuth(authenticator);
  router.get('/me/mfa', signedIn, async (_req, res) => {
    const { totp, recoveryCodesLeft, passkeys } = await mfa.status(principalOf<Principal>(res).userId);
    res.json({ totp, recoveryCodesLeft, passkeys } satisfies MfaStatusJson);
  });
  router.post('/me/mfa/totp', signedIn, async (_req, res) => {
    const { secret, otpauthUri, qrCodeSvg } = await mfa.startTotpEnrollment(principalOf<Principal>(res));
    res.json({ secret, otpauthUri, qrCodeSvg } satisfies TotpEnrollmentJson);
  });
  router.post('/me/mfa/totp/confirm', signedIn, async (req, res) => {
    const recoveryCodes = await mfa.confirmTotp(principalOf<Principal>(res), parseInput(MfaCodeSchema, req.body).code, clientInfo(req));
    res.json({ recoveryCodes } satisfies RecoveryCodesJson);
  });
  router.delete('/me/mfa/totp', signedIn, async (req, res) => {
    await mfa.disableTotp(principalOf<Principal>(res), parseInput(MfaCodeSchema, req.body).code, clientInfo(req));
    res.status(204).end();
  });
  router.post('/me/mfa/recovery-codes', signedIn, async (req, res) => {
    const recoveryCodes = await mfa.regenerateRecoveryCodes(principalOf<Principal>(res), parseInput(MfaCodeSchema, req.body).code, clientInfo(req));
    res.json({ recoveryCodes } satisfies RecoveryCodesJson);
  });
  return router;
}
