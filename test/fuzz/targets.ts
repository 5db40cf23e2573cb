// What the fuzz run aims at, as the running service describes itself: every path and method of its
// OpenAPI document, every root field of its GraphQL schema (introspection), the explorer's files.
import { buildClientSchema, getIntrospectionQuery, type GraphQLField, type GraphQLSchema, type IntrospectionQuery } from 'graphql';
import type { JsonSchema } from './values.js';

interface RestTarget {
  transport: 'rest';
  /** `POST /api/v1/users/me/sessions/{id}`: the route template, as findings are grouped. */
  name: string;
  method: string;
  template: string;
  pathParams: string[];
  /** Good values of path parameters where the service showed them (the explorer's files). */
  pathValues?: Record<string, string[]>;
  query: { name: string; schema: JsonSchema }[];
  body?: { multipart: boolean; schema: JsonSchema };
  auth: 'bearer' | 'internal' | 'none';
}

export interface GraphQLTarget {
  transport: 'graphql';
  /** `Mutation.login` */
  name: string;
  operation: 'query' | 'mutation' | 'subscription';
  field: GraphQLField<unknown, unknown>;
}

export type Target = RestTarget | GraphQLTarget;

interface OpenApiOperation {
  parameters?: { name: string; in: string; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, unknown>[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of the service's OpenAPI document. */
async function restTargets(url: string): Promise<RestTarget[]> {
  const response = await fetch(`${url}/api/v1/openapi.json`);
  if (response.status !== 200) throw new Error(`GET /api/v1/openapi.json: ${response.status}`);
  const document = (await response.json()) as { paths: Record<string, Record<string, OpenApiOperation>> };
  const targets: RestTarget[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!METHODS.includes(method)) continue;
      const parameters = operation.parameters ?? [];
      const content = operation.requestBody?.content ?? {};
      const mediaType = Object.keys(content)[0];
      const scheme = Object.keys(operation.security?.[0] ?? {})[0];
      targets.push({
        transport: 'rest',
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        template,
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        query: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        body: mediaType ? { multipart: mediaType.startsWith('multipart/'), schema: content[mediaType]!.schema ?? {} } : undefined,
        auth: scheme === 'bearer' ? 'bearer' : scheme ? 'internal' : 'none',
      });
    }
  }
  return targets;
}

/** The route of the files the GraphQL explorer's page loads (none when the explorer is off). */
async function explorerTargets(url: string): Promise<RestTarget[]> {
  const page = await fetch(`${url}/graphql`, { headers: { accept: 'text/html' } });
  const html = page.status === 200 ? await page.text() : '';
  const files = [...new Set(html.match(/\/graphql\/explorer\/[^"'\s<>]+/g) ?? [])].map((path) => path.split('/'));
  if (files.length === 0) return [];
  return [
    {
      transport: 'rest',
      name: 'GET /graphql/explorer/{version}/{file}',
      method: 'GET',
      template: '/graphql/explorer/{version}/{file}',
      pathParams: ['version', 'file'],
      pathValues: { version: [...new Set(files.map((f) => f[3]!))], file: files.map((f) => f.slice(4).join('/')) },
      query: [],
      auth: 'none',
    },
  ];
}

/** The schema as introspection shows it. */
async function introspect(url: string): Promise<GraphQLSchema> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  const body = (await response.json()) as { data?: IntrospectionQuery; errors?: unknown };
  if (!body.data) throw new Error(`introspection failed: ${JSON.stringify(body.errors)}`);
  return buildClientSchema(body.data);
}

/** Every REST operation, explorer file and GraphQL root field of the service at `url`. */
export async function discoverTargets(url: string): Promise<{ targets: Target[]; schema: GraphQLSchema }> {
  const schema = await introspect(url);
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const;
  const graphql: GraphQLTarget[] = roots.flatMap(([operation, type]) =>
    type ? Object.values(type.getFields()).map((field) => ({ transport: 'graphql' as const, name: `${type.name}.${field.name}`, operation, field })) : [],
  );
  return { targets: [...(await restTargets(url)), ...(await explorerTargets(url)), ...graphql], schema };
}
