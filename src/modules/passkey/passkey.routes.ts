import { Router } from 'express';
import type { PasskeyJson } from '../../openapi/shapes.js';
import type { Services } from '../../services.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { OwnIdSchema } from '../../shared/ids.js';
import { parseInput } from '../../shared/validation.js';
import type { Principal } from '../account/principal.js';
import { AddPasskeySchema, RenamePasskeySchema } from './passkey.inputs.js';
import type { PasskeyView } from './passkey.service.js';

function passkeyToJson(passkey: PasskeyView): PasskeyJson {
  return { ...passkey, createdAt: passkey.createdAt.toISOString(), lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null };
}

/** The signed-in user's passkeys, under /users; signing in with one is under /auth/passkey. */
export function passkeyRoutes({ passkeys, authenticator }: Services): Router {
  const router = Router();
  const signedIn = requireAuth(authenticator);
  router.post('/me/passkeys/registration-options', signedIn, async (_req, res) => {
    res.json(await passkeys.registrationOptions(principalOf<Principal>(res)));
  });
  router.get('/me/passkeys', signedIn, async (_req, res) => {
    res.json((await passkeys.list(principalOf<Principal>(res).userId)).map(passkeyToJson));
  });
  router.post('/me/passkeys', signedIn, async (req, res) => {
    res.status(201).json(passkeyToJson(await passkeys.add(principalOf<Principal>(res), parseInput(AddPasskeySchema, req.body), clientInfo(req))));
  });
  router.patch('/me/passkeys/:id', signedIn, async (req, res) => {
    const { id } = parseInput(OwnIdSchema, req.params);
    const { name } = parseInput(RenamePasskeySchema, req.body);
    res.json(passkeyToJson(await passkeys.rename(principalOf<Principal>(res), id, name)));
  });
  router.delete('/me/passkeys/:id', signedIn, async (req, res) => {
    await passkeys.remove(principalOf<Principal>(res), parseInput(OwnIdSchema, req.params).id, clientInfo(req));
    res.status(204).end();
  });
  return router;
}
