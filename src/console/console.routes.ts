import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Express, RequestHandler } from 'express';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';
import { consolePageHeaders } from '../shared/http/security.js';

/** What `npm run build` wrote to dist/console (src/console/app/build.mjs), as read once at start. */
export interface BuiltConsole {
  dir: string;
  page: string;
  /** The file names under assets/, each with its content hash in it. */
  assets: ReadonlySet<string>;
  /** The hashes of the console's GraphQL documents: its trusted-documents manifest. */
  documents: string[];
}

/**
 * dist/console, found from the compiled module (dist/src/console/) or from its source (src/console/,
 * where the tests run it); undefined when the console was never built.
 */
export function builtConsole(): BuiltConsole | undefined {
  const dir = [new URL('../../console/', import.meta.url), new URL('../../dist/console/', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((candidate) => existsSync(join(candidate, 'index.html')));
  if (!dir) return undefined;
  const manifest = JSON.parse(readFileSync(join(dir, 'persisted-documents.json'), 'utf8')) as Record<string, string>;
  return {
    dir,
    page: readFileSync(join(dir, 'index.html'), 'utf8'),
    assets: new Set(readdirSync(join(dir, 'assets'))),
    documents: Object.keys(manifest).map((key) => key.replace(/^sha256:/, '')),
  };
}

/**
 * The operator console: `GET /console/assets/<file>`, the built files, cached for good (their names
 * change with their content); `GET /console` and every other path below it, the page, whose own
 * router shows the path (`/console/users/<id>` can be bookmarked), revalidated on every load
 * (`no-cache` with an ETag) so that a new build is picked up at once. The page may load and connect
 * to this origin only: see consolePageHeaders. Without a build, every path answers 404 saying so.
 */
export function consoleRoutes(app: Express, built: BuiltConsole | undefined): void {
  const headers = consolePageHeaders();
  const notBuilt = () => new AppError(ErrorCode.NOT_FOUND, msg('console.notBuilt'));
  const asset: RequestHandler = (req, res, next) => {
    const file = req.params.file as string;
    if (!built) throw notBuilt();
    if (!built.assets.has(file)) throw new AppError(ErrorCode.NOT_FOUND, msg('console.noFile', { path: req.path }));
    // No ranges, as for the explorer's files: small files, cached for good.
    res.sendFile(join(built.dir, 'assets', file), { maxAge: '1y', immutable: true, acceptRanges: false }, (error) => {
      if (error && !req.socket.destroyed) next(error);
    });
  };
  const etag = built && `"${createHash('sha256').update(built.page).digest('base64url').slice(0, 27)}"`;
  const page: RequestHandler = (req, res, next) => {
    if (!built || !etag) throw notBuilt();
    // A file that is not there is not a page of the console (a stale link to an old build's file).
    if (req.path.toLowerCase().startsWith('/console/assets/')) throw new AppError(ErrorCode.NOT_FOUND, msg('console.noFile', { path: req.path }));
    headers(req, res, (error?: unknown) => {
      if (error) return next(error);
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('ETag', etag);
      if (req.fresh) res.status(304).end();
      else res.type('html').send(built.page);
    });
  };
  app.get('/console/assets/:file', asset);
  app.get('/console', page);
  app.get('/console/*path', page);
}
