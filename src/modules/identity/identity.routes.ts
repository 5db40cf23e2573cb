import express, { Router, type Request, type Response } from 'express';
import type { AuthPayloadJson, IdentityJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { storableInput } from '../../shared/http/input-guard.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { userToJson } from '../account/user.rest.js';
import type { AuthPayload } from '../auth/sign-ins.js';
import { ExchangeSchema, IdTokenSchema, LinkByPhoneSchema, ProviderSchema, ResultSchema, ReturnToSchema, StartSchema } from './identity.inputs.js';
import type { IdentityView } from './identity.service.js';

export function identityToJson(identity: IdentityView): IdentityJson {
  return { ...identity, linkedAt: identity.linkedAt.toISOString(), lastUsedAt: identity.lastUsedAt?.toISOString() ?? null };
}

function payloadToJson(payload: AuthPayload): AuthPayloadJson {
  return { ...payload, user: userToJson(payload.user) };
}

/**
 * An authorization URL, as the caller asked for it: a redirect for a browser that navigates here, or
 * `{ url }` for a script that asks for JSON (it cannot read a cross-origin redirect, nor send a
 * Bearer token along a navigation).
 */
function sendAuthorization(req: Request, res: Response, url: string): void {
  if (req.accepts(['text/html', 'application/json']) === 'application/json') res.json({ url });
  else res.redirect(302, url);
}

/** The provider's return: its query string, or the form it posted (response_mode=form_post, as Apple does). */
function answerOf(req: Request): URLSearchParams {
  const answer = new URLSearchParams();
  const fields = req.method === 'POST' ? (req.body as Record<string, unknown> | undefined) : (req.query as Record<string, unknown>);
  for (const [name, value] of Object.entries(fields ?? {})) if (typeof value === 'string') answer.append(name, value);
  return answer;
}

/** Sign-in through external OpenID Connect providers, under /auth/oidc (API.md 9.1). */
export function oidcRoutes({ externalSignIn, identities }: Services): Router {
  const router = Router();
  const provider = (req: Request) => parseInput(ProviderSchema, req.params).provider;
  router.get('/oidc/:provider/authorize', async (req, res) => {
    const { returnTo, codeChallenge } = parseInput(StartSchema, req.query);
    sendAuthorization(req, res, await externalSignIn.authorizationUrl(provider(req), returnTo, clientInfo(req), codeChallenge));
  });
  const callback = async (req: Request, res: Response) => {
    res.redirect(302, await identities.callback(provider(req), answerOf(req)));
  };
  router.get('/oidc/:provider/callback', callback);
  // A form the provider's page posts across sites: small, and checked as every other input is.
  router.post('/oidc/:provider/callback', express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 }), storableInput, callback);
  router.post('/oidc/exchange', async (req, res) => {
    const { result, codeVerifier } = parseInput(ExchangeSchema, req.body);
    res.json(payloadToJson(await externalSignIn.completeWebFlow(result, codeVerifier, clientInfo(req))));
  });
  router.post('/oidc/link', async (req, res) => {
    res.json(payloadToJson(await externalSignIn.linkByPhone(parseInput(LinkByPhoneSchema, req.body), clientInfo(req))));
  });
  router.post('/oidc/:provider/id-token', async (req, res) => {
    const { idToken, nonce } = parseInput(IdTokenSchema, req.body);
    res.json(payloadToJson(await externalSignIn.signInWithIdToken(provider(req), idToken, nonce, clientInfo(req))));
  });
  return router;
}

/** The signed-in user's external identities, under /users/me/identities. */
export function identityRoutes({ identities, authenticator }: Services): Router {
  const router = Router();
  const signedIn = requireAuth(authenticator);
  const provider = (req: Request) => parseInput(ProviderSchema, req.params).provider;
  router.get('/me/identities', signedIn, async (_req, res) => {
    res.json((await identities.listFor(principalOf<Principal>(res).userId)).map(identityToJson));
  });
  router.post('/me/identities/exchange', signedIn, async (req, res) => {
    const { result } = parseInput(ResultSchema, req.body);
    res.status(201).json(identityToJson(await identities.completeLink(principalOf<Principal>(res), result, clientInfo(req))));
  });
  router.get('/me/identities/:provider/authorize', signedIn, async (req, res) => {
    const { returnTo } = parseInput(ReturnToSchema, req.query);
    sendAuthorization(req, res, await identities.authorizationUrl(provider(req), returnTo, clientInfo(req), principalOf<Principal>(res)));
  });
  router.post('/me/identities/:provider/id-token', signedIn, async (req, res) => {
    const { idToken, nonce } = parseInput(IdTokenSchema, req.body);
    res.status(201).json(identityToJson(await identities.addWithIdToken(principalOf<Principal>(res), provider(req), idToken, nonce, clientInfo(req))));
  });
  router.delete('/me/identities/:provider', signedIn, async (req, res) => {
    await identities.remove(principalOf<Principal>(res), provider(req), clientInfo(req));
    res.status(204).end();
  });
  return router;
}
