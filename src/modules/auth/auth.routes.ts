import { Router } from 'express';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { AuthPayloadJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { userToJson } from '../account/user.rest.js';
import {
  CodeLoginSchema,
  LogoutSchema,
  PasswordLoginSchema,
  RefreshSchema,
  RegisterSchema,
  ResetPasswordSchema,
  SendCodeSchema,
  VerifyMfaSchema,
} from './auth.inputs.js';
import type { AuthPayload } from './sign-ins.js';
import { PasskeyLoginSchema } from '../passkey/passkey.inputs.js';
import { SecondProofSchema } from './second-proof.inputs.js';

function authPayloadToJson(payload: AuthPayload): AuthPayloadJson {
  return { ...payload, user: userToJson(payload.user) };
}

export function authRoutes(services: Services): Router {
  const { auth } = services;
  const router = Router();
  router.post('/send-code', async (req, res) => {
    res.json(await auth.sendCode(parseInput(SendCodeSchema, req.body), clientInfo(req)));
  });
  router.post('/login', async (req, res) => {
    res.json(authPayloadToJson(await auth.loginWithCode(parseInput(CodeLoginSchema, req.body), clientInfo(req))));
  });
  router.post('/login-password', async (req, res) => {
    res.json(authPayloadToJson(await auth.loginWithPassword(parseInput(PasswordLoginSchema, req.body), clientInfo(req))));
  });
  router.post('/mfa/verify', async (req, res) => {
    const { mfaToken, code } = parseInput(VerifyMfaSchema, req.body);
    res.json(authPayloadToJson(await auth.verifyMfa(mfaToken, code, clientInfo(req))));
  });
  router.post('/second-proof', async (req, res) => {
    res.json(authPayloadToJson(await services.secondProof.complete(parseInput(SecondProofSchema, req.body), clientInfo(req))));
  });
  router.post('/register', async (req, res) => {
    res.status(201).json(authPayloadToJson(await auth.register(parseInput(RegisterSchema, req.body), clientInfo(req))));
  });
  router.post('/refresh', async (req, res) => {
    res.json(authPayloadToJson(await auth.refresh(parseInput(RefreshSchema, req.body).refreshToken, clientInfo(req))));
  });
  router.post('/reset-password', async (req, res) => {
    await auth.resetPassword(parseInput(ResetPasswordSchema, req.body), clientInfo(req));
    res.status(204).end();
  });
  router.post('/passkey/options', async (req, res) => {
    res.json(await auth.passkeyOptions(clientInfo(req)));
  });
  router.post('/passkey/login', async (req, res) => {
    const { challengeId, response } = parseInput(PasskeyLoginSchema, req.body);
    res.json(authPayloadToJson(await auth.loginWithPasskey(challengeId, response, clientInfo(req))));
  });
  router.post('/logout', async (req, res) => {
    const { allSessions, refreshToken } = parseInput(LogoutSchema, req.body);
    const authorization = req.get('authorization');
    if (refreshToken === undefined) {
      await auth.logout(await services.authenticator.authenticate(authorization), allSessions, clientInfo(req));
    } else {
      // The bearer token is optional here; when sent, it is checked as always.
      const caller = authorization === undefined ? undefined : await services.authenticator.authenticate(authorization);
      await auth.logoutWithRefreshToken(refreshToken, caller, allSessions, clientInfo(req));
    }
    res.status(204).end();
  });
  return router;
}
