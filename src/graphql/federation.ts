import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { execute, isInputObjectType, isInterfaceType, isObjectType, parse, type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLSchema } from 'graphql';
import { createResolversMap } from 'type-graphql';

/** The Federation 2 features the schema uses: entities by key. */
const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

/**
 * The resolvers' schema as an Apollo Federation 2 subgraph (`@apollo/subgraph`): the same types and
 * resolvers (type-graphql's, mapped back onto the printed SDL with its directives, `@key` among them),
 * plus `_service { sdl }`, `_entities(representations)` resolved by `references`, and the `_Any` and
 * `_Entity` types. What type-graphql adds beyond the SDL (the fields' extensions, which
 * input-checks.ts reads) is carried over field by field.
 */
export function toSubgraph(schema: GraphQLSchema, references: GraphQLResolverMap<unknown>): GraphQLSchema {
  const typeDefs = parse(`${LINK}\n${printSchemaWithDirectives(schema)}`);
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<unknown>;
  for (const [type, resolver] of Object.entries(references)) resolvers[type] = { ...(resolvers[type] as object), ...resolver } as GraphQLResolverMap<unknown>[string];
  const subgraph = buildSubgraphSchema([{ typeDefs, resolvers }]);
  copyFieldExtensions(schema, subgraph);
  return subgraph;
}

/** The SDL a gateway composes: what `_service { sdl }` answers (committed as schema/subgraph.graphql). */
export async function printSubgraph(subgraph: GraphQLSchema): Promise<string> {
  const result = await execute({ schema: subgraph, document: parse('{ _service { sdl } }') });
  const sdl = (result.data?._service as { sdl?: unknown } | undefined)?.sdl;
  if (typeof sdl !== 'string') throw new Error(`the subgraph answered no SDL: ${JSON.stringify(result.errors)}`);
  return `${sdl.trim()}\n`;
}

/**
 * What the SDL cannot carry back onto the subgraph's types: each field's extensions, and the default
 * values of arguments and input fields as the resolvers' types hold them (an enum's internal value,
 * `login` for `LOGIN`, which a schema built from SDL would hold as the name).
 */
function copyFieldExtensions(from: GraphQLSchema, to: GraphQLSchema): void {
  for (const type of Object.values(from.getTypeMap())) {
    if (!(isObjectType(type) || isInterfaceType(type) || isInputObjectType(type))) continue;
    const target = to.getType(type.name);
    if (!target || !(isObjectType(target) || isInterfaceType(target) || isInputObjectType(target))) continue;
    const targetFields = target.getFields() as Record<string, Mutable<GraphQLField<unknown, unknown> & GraphQLInputField>>;
    for (const [name, field] of Object.entries(type.getFields()) as [string, GraphQLField<unknown, unknown> | GraphQLInputField][]) {
      const copy = targetFields[name];
      if (!copy) continue;
      if (Object.keys(field.extensions).length > 0) copy.extensions = { ...field.extensions, ...copy.extensions };
      if ('defaultValue' in field) copy.defaultValue = field.defaultValue;
      for (const arg of 'args' in field ? field.args : []) {
        const argCopy = copy.args?.find((a) => a.name === arg.name) as Mutable<GraphQLArgument> | undefined;
        if (argCopy) argCopy.defaultValue = arg.defaultValue;
      }
    }
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
