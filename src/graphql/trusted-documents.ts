import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Request, RequestHandler } from 'express';
import { ConfigError } from '../config/config.js';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';

const HEX = /^[0-9a-f]{64}$/;

/**
 * The documents a production service runs, and no others (GRAPHQL_TRUSTED_DOCUMENTS): JSON
 * manifests `{ "<sha256 hex>": "<document>" }`, as GraphQL Code Generator's client preset writes them
 * (`persisted-documents.json`, whose keys may carry a `sha256:` prefix), merged: each client's
 * manifest as it was built (the frontends', the operator console's). Read once at start; a key that
 * is not the SHA-256 of its document stops the service, as a bad setting does.
 */
export class TrustedDocuments {
  private constructor(private readonly byHash: ReadonlyMap<string, string>) {}

  static load(...paths: string[]): TrustedDocuments {
    const byHash = new Map<string, string>();
    const problems: string[] = [];
    for (const path of paths) {
      let manifest: unknown;
      try {
        manifest = JSON.parse(readFileSync(path, 'utf8'));
      } catch (error) {
        problems.push(`GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path} as JSON (${(error as Error).message})`);
        continue;
      }
      if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) {
        problems.push(`GRAPHQL_TRUSTED_DOCUMENTS: ${path} must be a JSON object of "<sha256 hex>": "<document>"`);
        continue;
      }
      for (const [key, document] of Object.entries(manifest)) {
        const hash = hashOf(key);
        if (typeof document !== 'string' || !hash) problems.push(`GRAPHQL_TRUSTED_DOCUMENTS: ${path}: "${key.slice(0, 80)}" is not a SHA-256 (hex) with a document`);
        else if (createHash('sha256').update(document).digest('hex') !== hash) problems.push(`GRAPHQL_TRUSTED_DOCUMENTS: ${path}: the document of ${key} does not hash to it`);
        else byHash.set(hash, document);
      }
    }
    if (problems.length > 0) throw new ConfigError(problems);
    return new TrustedDocuments(byHash);
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The document of a `documentId` or `persistedQuery.sha256Hash` (hex, or `sha256:` and hex). */
  documentOf(id: unknown): string | undefined {
    const hash = typeof id === 'string' ? hashOf(id) : undefined;
    return hash ? this.byHash.get(hash) : undefined;
  }
}

function hashOf(id: string): string | undefined {
  const hex = (id.startsWith('sha256:') ? id.slice(7) : id).toLowerCase();
  return HEX.test(hex) ? hex : undefined;
}

function notFound(): AppError {
  return new AppError(ErrorCode.PERSISTED_QUERY_NOT_FOUND, msg('graphql.untrustedDocument'));
}

/**
 * In front of Apollo with GRAPHQL_TRUSTED_DOCUMENTS: an operation names its document by
 * `documentId` or `extensions.persistedQuery.sha256Hash` (POST body, or GET parameters), and runs that
 * document of the manifest; one that names none, names one the manifest lacks, or sends a text other
 * than the named document's is PERSISTED_QUERY_NOT_FOUND (400). A GET without any operation (a
 * browser asking for the landing page) passes on untouched.
 */
export function trustedDocumentsOnly(trusted: TrustedDocuments): RequestHandler {
  return (req, _res, next) => {
    if (req.method === 'POST') {
      const body = req.body as Record<string, unknown> | undefined;
      // Not an operation at all: Apollo's own answer (400) says what is wrong with it.
      if (!body || typeof body !== 'object' || Array.isArray(body)) return next();
      body.query = documentFor(trusted, body.documentId, body.extensions, body.query);
      delete body.documentId;
      if (body.extensions !== undefined) body.extensions = withoutPersistedQuery(body.extensions);
    } else if (req.method === 'GET') {
      rewriteGet(req, trusted);
    }
    next();
  };
}

function documentFor(trusted: TrustedDocuments, documentId: unknown, extensions: unknown, query: unknown): string {
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  const document = trusted.documentOf(documentId ?? persisted?.sha256Hash);
  if (!document || (query !== undefined && query !== document)) throw notFound();
  return document;
}

/** The extensions without `persistedQuery`: the document is found already, Apollo's own APQ is off. */
function withoutPersistedQuery(extensions: unknown): unknown {
  if (!extensions || typeof extensions !== 'object' || !('persistedQuery' in extensions)) return extensions;
  const { persistedQuery: _, ...rest } = extensions as Record<string, unknown>;
  return rest;
}

function rewriteGet(req: Request, trusted: TrustedDocuments): void {
  const at = req.url.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : req.url.slice(at + 1));
  if (!params.has('query') && !params.has('documentId') && !params.has('extensions')) return;
  let extensions: unknown;
  try {
    extensions = params.has('extensions') ? JSON.parse(params.get('extensions')!) : undefined;
  } catch {
    throw notFound();
  }
  params.set('query', documentFor(trusted, params.get('documentId') ?? undefined, extensions, params.get('query') ?? undefined));
  params.delete('documentId');
  const rest = withoutPersistedQuery(extensions);
  if (rest === undefined) params.delete('extensions');
  else params.set('extensions', JSON.stringify(rest));
  req.url = `${at < 0 ? req.url : req.url.slice(0, at)}?${params.toString()}`;
}
