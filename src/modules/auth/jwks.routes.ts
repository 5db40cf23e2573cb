import type { RequestHandler } from 'express';
import type { Services } from '../../services.js';
import { JWKS_MAX_AGE_SECONDS } from '../../shared/tokens/signing-keys.js';

/**
 * GET /.well-known/jwks.json: the public keys that may verify a live access token. Public and
 * cacheable by anyone (verifiers, proxies, browsers), revalidated by ETag.
 */
export function jwksRoute({ signingKeys }: Services): RequestHandler {
  return (req, res) => {
    const { body, etag } = signingKeys.current().jwks();
    res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('ETag', etag);
    if (req.fresh) {
      res.status(304).end();
      return;
    }
    res.type('application/json').send(body);
  };
}
