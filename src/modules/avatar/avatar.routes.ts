import { Router, type RequestHandler } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Services } from '../../services.js';
import { readSingleFile } from '../../shared/http/multipart.js';
import { clientInfo } from '../../shared/http/request-context.js';
import { userToJson } from '../account/user.rest.js';
import { principalOf, requireAuth } from '../../shared/http/auth.js';
import type { Principal } from '../account/principal.js';

/** POST /users/me/avatar: authentication before a single byte of the body is read. */
export function avatarUploadRoute(services: Services): Router {
  const { avatars } = services;
  const upload: RequestHandler = async (req, res) => {
    const staged = await readSingleFile(
      req,
      { field: 'file', maxBytes: services.limits.avatarMaxBytes },
      (file) => avatars.stage(file),
      (result) => result.discard(),
    );
    res.json(userToJson(await avatars.replace(principalOf<Principal>(res), staged, clientInfo(req))));
  };
  return Router().post('/me/avatar', requireAuth(services.authenticator), closeOnError, upload);
}

/**
 * GET /avatars/:key: immutable content, so clients and proxies may cache it for a year. Avatars are
 * public images meant to be embedded by frontends on other sites: the image and its 304 are
 * `Cross-Origin-Resource-Policy: cross-origin`; a refusal (404) keeps the API's `same-site`.
 */
export function avatarServeRoute({ avatars }: Services): Router {
  return Router().get('/:key', async (req, res) => {
    const key = req.params.key;
    const etag = `"${key.replace(/\.webp$/, '')}"`;
    const avatar = await avatars.open(key);
    res.setHeader('Content-Type', 'image/webp');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('ETag', etag);
    // req.fresh compares If-None-Match as RFC 9110 says: a list of tags, weak ones, or *.
    if (req.fresh) {
      avatar.body.destroy();
      res.status(304).end();
      return;
    }
    // The client may have left while the file was opened: the open file is closed either way.
    if (res.destroyed) {
      avatar.body.destroy();
      return;
    }
    res.setHeader('Content-Length', String(avatar.size));
    try {
      await pipeline(avatar.body, res);
    } finally {
      avatar.body.destroy();
    }
  });
}

/**
 * When an upload is refused before its body was read to the end (too large, a second file), the
 * answer goes out at once; the rest of the body is then drained for a short while so that the
 * client can read the answer, and the connection is closed: a large or slow body is never read whole.
 */
const closeOnError: RequestHandler = (req, res, next) => {
  res.on('finish', () => {
    if (req.complete) return;
    let drained = 0;
    const close = () => req.socket.destroy();
    const timer = setTimeout(close, 2_000);
    timer.unref();
    req.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > 1024 * 1024) close();
    });
    req.on('end', () => clearTimeout(timer));
    req.resume();
  });
  next();
};
