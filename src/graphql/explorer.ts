import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { Request, RequestHandler } from 'express';
import type { Config } from '../config/config.js';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';
import { localPageHeaders, sandboxPageHeaders } from '../shared/http/security.js';
import { explorerPage, OWN_FILES, type PageLinks } from './explorer-page.js';

type Mode = Config['graphqlExplorer'];
type Page = Exclude<Mode, 'off'>;

/** What the page loads from npm packages, in order: GraphiQL's UMD build and the React 18 it runs on. */
const PACKAGE_FILES = [
  ['graphiql', 'graphiql.min.css'],
  ['react', 'umd/react.production.min.js'],
  ['react-dom', 'umd/react-dom.production.min.js'],
  ['graphiql', 'graphiql.min.js'],
] as const;

/** Where the page's files are served, below one folder per version. */
const EXPLORER_FILES = '/graphql/explorer/';

/** The media types Apollo weighs text/html against when it decides to answer a GET with its landing page. */
const APOLLO_TYPES = [
  'application/json; charset=utf-8',
  'application/graphql-response+json; charset=utf-8',
  'multipart/mixed; deferSpec=20220824',
  'multipart/mixed; incrementalSpec=v0.2',
  'multipart/mixed',
  'text/html',
];

/**
 * Apollo's landing page, Sandbox, which loads from Apollo's CDN. Set explicitly because Apollo's own
 * choice follows the process's NODE_ENV, not the configuration, and shows a landing page in production too.
 */
export function landingPagePlugin(mode: Mode): ApolloServerPlugin {
  return mode === 'off' ? ApolloServerPluginLandingPageDisabled() : ApolloServerPluginLandingPageLocalDefault();
}

/**
 * GET /graphql in a browser: GraphiQL with every file served from here (works offline), or Apollo
 * Sandbox, as `mode` says; `?explorer=graphiql|sandbox` picks the other. Requests that are not for a
 * page or one of its files go on to Apollo. Undefined when the explorer is off.
 */
export function graphqlExplorer(mode: Mode): RequestHandler | undefined {
  if (mode === 'off') return undefined;
  const { links, files } = explorerFiles();
  const page = explorerPage(links);
  const local = localPageHeaders();
  const sandbox = sandboxPageHeaders();
  return (req, res, next) => {
    // Everything but a GET below /graphql passes on after two comparisons: POST /graphql pays nothing more.
    if (req.method !== 'GET' || !req.path.startsWith('/graphql')) return next();
    if (req.path === '/graphql' || req.path === '/graphql/') {
      if (!prefersHtml(req)) return next();
      // Apollo renders Sandbox further on; only its headers are set here.
      if (pageAsked(req, mode) === 'sandbox') return sandbox(req, res, next);
      return local(req, res, () => {
        res.setHeader('Cache-Control', 'no-store');
        res.type('html').send(page);
      });
    }
    const file = files.get(req.path);
    if (file === undefined) {
      // A file of another version, or none: not for Apollo to answer as a malformed query.
      if (req.path.startsWith(EXPLORER_FILES)) throw new AppError(ErrorCode.NOT_FOUND, msg('http.noExplorerFile', { path: req.path }));
      return next();
    }
    local(req, res, () => file(req, res, next));
  };
}

/** Whether Apollo would answer this GET with its landing page: the same negotiation. */
function prefersHtml(req: Request): boolean {
  return req.headers.accept !== undefined && req.accepts(APOLLO_TYPES) === 'text/html';
}

function pageAsked(req: Request, mode: Page): Page {
  const asked = req.query.explorer;
  return asked === 'graphiql' || asked === 'sandbox' ? asked : mode;
}

/**
 * The page's files under one URL prefix per set of package versions (and of the page's own files),
 * so that they can be cached for good: another version is another URL.
 */
function explorerFiles(): { links: PageLinks; files: Map<string, RequestHandler> } {
  const require = createRequire(import.meta.url);
  const packages = [...new Set(PACKAGE_FILES.map(([name]) => name))].map((name) => {
    const manifest = require.resolve(`${name}/package.json`);
    return { name, dir: dirname(manifest), version: (require(manifest) as { version: string }).version };
  });
  const id = createHash('sha256')
    .update(JSON.stringify([packages.map(({ name, version }) => `${name}@${version}`), OWN_FILES]))
    .digest('hex')
    .slice(0, 16);
  const prefix = `${EXPLORER_FILES}${id}/`;
  const files = new Map<string, RequestHandler>();
  for (const [name, file] of PACKAGE_FILES) {
    const path = join(packages.find((p) => p.name === name)!.dir, file);
    // No ranges: the files are small and cached for good, and an unsatisfiable range would need an
    // answer (416) outside the error catalogue; RFC 9110 lets a server ignore Range.
    files.set(prefix + basename(file), (req, res, next) => {
      res.sendFile(path, { maxAge: '1y', immutable: true, acceptRanges: false }, (error) => {
        // A connection gone mid-file (the client left, or Node dropped it for bytes it could not
        // parse) is nobody's fault here: the access log records the abort.
        if (error && !req.socket.destroyed) next(error);
      });
    });
  }
  for (const [name, body] of Object.entries(OWN_FILES)) {
    files.set(prefix + name, (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.type(name.endsWith('.css') ? 'css' : 'js').send(body);
    });
  }
  const urls = [...files.keys()];
  return { links: { styles: urls.filter((u) => u.endsWith('.css')), scripts: urls.filter((u) => u.endsWith('.js')) }, files };
}
