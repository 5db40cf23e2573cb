import type { ApolloServerPlugin } from '@apollo/server';
import { Kind, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Request, RequestHandler, Response } from 'express';
import type { Metrics } from '../shared/metrics/metrics.js';
import type { GraphQLContext } from './context.js';
import { PLAIN_JSON } from './fast-path.js';
import { rootField } from './metrics-plugin.js';

/** Queries remembered at most: a client sending ever new documents fills it, and then none is added. */
const MAX_KNOWN = 500;
/** Longer query texts are not remembered (a first screen is well under 1 KiB). */
const MAX_QUERY_CHARS = 8 * 1024;

/** A query Apollo has answered without error, as it answered it. */
interface Known {
  /** The document compiled by graphql-jit for this schema and operation. */
  run: (context: GraphQLContext) => Promise<ExecutionResult> | ExecutionResult;
  /** The answer's headers as Apollo set them (its content type, chosen by the request's Accept). */
  headers: [string, string][];
  /** The operation as graphql_operations_total names it. */
  label: string;
}

/** What the plugin saw of a request it would let be remembered, kept on the request's context. */
interface Learnable {
  document: DocumentNode;
  operationName: string | undefined;
  label: string;
}

/**
 * Repeated queries answered past Apollo's request pipeline. A frontend sends the same few documents
 * over and over (its first screen, `me`); for each one Apollo reads the HTTP request again, hashes the
 * text, looks the document up, runs every plugin's hooks, and writes the answer through its own
 * response objects: at one request in flight that was about as much CPU as the rest of the request.
 *
 * A query is remembered only after Apollo answered it, whole, with no error: a query operation (no
 * mutation), with no variables and no extensions (no persisted query), whose root fields are the
 * schema's own (no `_entities`, `_service` or introspection, whose answers depend on more than the
 * text), for the same Accept header. Everything Apollo checks of such a document (its validity, the
 * depth, alias, cost and literal limits, the arguments' checks) depends on its text alone, so the next
 * request with the same text, operation name and Accept is executed at once, compiled by graphql-jit
 * for the same schema, with the same context as Apollo gives it. When that execution has any error, its
 * result is dropped and Apollo answers the request, as every other (a read run twice, so that errors
 * are formatted, translated and logged in one place). The answer is Apollo's, byte for byte
 * (test/graphql/fast-path.test.ts compares them); graphql_operations_total counts it as Apollo's
 * plugin would.
 */
export class KnownQueries {
  /** By query text, then by Accept and operation name (no key string built per request). */
  private readonly known = new Map<string, Map<string, Known>>();
  private size = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly metrics?: Metrics,
  ) {}

  /** Marks the requests Apollo answers that may be remembered once their answer is seen (see learn). */
  plugin(): ApolloServerPlugin<GraphQLContext> {
    const schema = this.schema;
    return {
      async requestDidStart({ request }) {
        if (!qualifies(request.query, request.variables, request.extensions)) return;
        return {
          async willSendResponse({ response, operation, document, contextValue }) {
            if (response.body.kind !== 'single' || response.body.singleResult.errors || !operation || !document) return;
            if (response.http.status !== undefined && response.http.status !== 200) return;
            if (operation.operation !== 'query' || !ownRootFields(operation)) return;
            contextValue.notes.knownQuery = { document, operationName: request.operationName ?? undefined, label: rootField(operation, schema) } satisfies Learnable;
          },
        };
      },
    };
  }

  /** Remembers the query of `req` as Apollo answered it, if its plugin marked it. */
  learn(req: Request, context: GraphQLContext | undefined, status: number | undefined, headers: Iterable<[string, string]>): void {
    const learnable = context?.notes.knownQuery as Learnable | undefined;
    if (!learnable || (status !== undefined && status !== 200) || this.size >= MAX_KNOWN) return;
    const key = keyOf(req);
    if (key === undefined) return;
    const variants = this.known.get(key.query);
    if (variants?.has(key.variant)) return;
    const compiled = compileQuery(this.schema, learnable.document, learnable.operationName);
    if (!isCompiledQuery(compiled)) return;
    const known: Known = { run: (context) => compiled.query(undefined, context, {}), label: learnable.label, headers: [...headers] };
    if (variants) variants.set(key.variant, known);
    else this.known.set(key.query, new Map([[key.variant, known]]));
    this.size++;
  }

  /**
   * The handler that answers a known query executed without error, as Apollo answered it (status
   * 200, Apollo's headers, its JSON); any other request goes on (`next`), to Apollo in the end.
   */
  handler(context: (req: Request, res: Response) => Promise<GraphQLContext>): RequestHandler {
    return async (req, res, next) => {
      const body = this.size === 0 ? undefined : await this.answer(req, () => context(req, res));
      if (!body) return next();
      // What res.send does for a POST answered 200 (the charset is in Apollo's Content-Type already).
      for (const [key, value] of body.headers) res.setHeader(key, value);
      res.statusCode = 200;
      res.setHeader('Content-Length', Buffer.byteLength(body.text));
      res.end(body.text);
    };
  }

  /** The answer to `req` when its query is known and executed without error; undefined when Apollo must answer. */
  private async answer(req: Request, context: () => Promise<GraphQLContext>): Promise<{ headers: [string, string][]; text: string } | undefined> {
    const key = keyOf(req);
    const known = key && this.known.get(key.query)?.get(key.variant);
    if (!known) return undefined;
    let result: ExecutionResult;
    try {
      result = await known.run(await context());
    } catch {
      return undefined; // Apollo answers, and reports what failed
    }
    if (result.errors || !result.data) return undefined;
    this.metrics?.graphqlOperation(known.label, 'query', 'success');
    // As Apollo writes a result: JSON of { data } and a line feed.
    return { headers: known.headers, text: `${JSON.stringify({ data: result.data })}\n` };
  }
}

/** The key of a request that may be answered from a known query: its text, and its Accept and operation name. */
function keyOf(req: Request): { query: string; variant: string } | undefined {
  if (req.method !== 'POST' || !PLAIN_JSON.has(req.headers['content-type']?.toLowerCase() ?? '')) return undefined;
  const body = req.body as { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown } | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  for (const name in body) if (name !== 'query' && name !== 'variables' && name !== 'operationName') return undefined;
  const { query, operationName } = body;
  if (!qualifies(query, body.variables, undefined)) return undefined;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return undefined;
  return { query: query as string, variant: `${req.headers.accept ?? ''}\n${operationName ?? ''}` };
}

/** A query text of bounded length with no variables (absent, null or `{}`) and no extensions. */
function qualifies(query: unknown, variables: unknown, extensions: unknown): boolean {
  if (typeof query !== 'string' || query.length > MAX_QUERY_CHARS || extensions !== undefined) return false;
  if (variables === undefined || variables === null) return true;
  if (typeof variables !== 'object' || Array.isArray(variables)) return false;
  for (const _ in variables) return false;
  return true;
}

/** Whether every root selection is a field of the schema's own (not `_entities`, `_service` or `__…`). */
function ownRootFields(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && !s.name.value.startsWith('_'));
}
