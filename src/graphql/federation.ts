import { buildSubgraphSchema, type GraphQLResolverMap } from '@apollo/subgraph';
import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { execute, isInputObjectType, isInterfaceType, isObjectType, isUnionType, parse, type GraphQLArgument, type GraphQLField, type GraphQLInputField, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { createResolversMap } from 'type-graphql';
import type { z } from 'zod';

/** The Federation 2 features the schema uses: entities by key. */
const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])';

/** Where an entity type's extensions hold the schema of its key fields. */
const KEY = 'entityKey';

/** An entity type of the subgraph (a type with `@key`): what its representations carry, and how one is resolved. */
export interface Entity<Context> {
  /** The key fields of a representation, `__typename` aside; checked before any reference is resolved. */
  key: z.ZodType;
  /** The object a representation names (its key fields as `key` accepted them, in the caller's spelling). */
  resolveReference(reference: Record<string, unknown>, context: Context): unknown;
}

/**
 * The resolvers' schema as an Apollo Federation 2 subgraph (`@apollo/subgraph`): the same types and
 * resolvers (type-graphql's, mapped back onto the printed SDL with its directives, `@key` among them),
 * plus `_service { sdl }`, `_entities(representations)` resolved by `entities`, and the `_Any` and
 * `_Entity` types. What type-graphql adds beyond the SDL (the fields' extensions, which
 * input-checks.ts reads) is carried over field by field.
 */
export function toSubgraph<Context>(schema: GraphQLSchema, entities: Record<string, Entity<Context>>): GraphQLSchema {
  const typeDefs = parse(`${LINK}\n${printSchemaWithDirectives(schema)}`);
  const resolvers = createResolversMap(schema) as GraphQLResolverMap<unknown>;
  for (const [type, entity] of Object.entries(entities)) {
    resolvers[type] = { ...(resolvers[type] as object), __resolveReference: entity.resolveReference } as GraphQLResolverMap<unknown>[string];
  }
  const subgraph = buildSubgraphSchema([{ typeDefs, resolvers }]);
  copyFieldExtensions(schema, subgraph);
  for (const [name, entity] of Object.entries(entities)) {
    const type = entityType(subgraph, name);
    if (!type) throw new Error(`${name} is not an entity type of the subgraph (a type with @key)`);
    (type as Mutable<GraphQLObjectType>).extensions = { ...type.extensions, [KEY]: entity.key };
  }
  return subgraph;
}

const keysOf = new WeakMap<GraphQLSchema, ReadonlyMap<string, z.ZodType>>();

/** The entity types of `subgraph` (given to toSubgraph) by name, each with the schema of its key fields. */
export function entityKeys(subgraph: GraphQLSchema): ReadonlyMap<string, z.ZodType> {
  let keys = keysOf.get(subgraph);
  if (!keys) {
    const union = subgraph.getType('_Entity');
    const members = isUnionType(union) ? union.getTypes() : [];
    keys = new Map(members.flatMap((type) => (type.extensions[KEY] ? [[type.name, type.extensions[KEY] as z.ZodType] as const] : [])));
    keysOf.set(subgraph, keys);
  }
  return keys;
}

/** A member of `_Entity` (the types with `@key`). */
function entityType(subgraph: GraphQLSchema, typename: string): GraphQLObjectType | undefined {
  const union = subgraph.getType('_Entity');
  return isUnionType(union) ? union.getTypes().find((member) => member.name === typename) : undefined;
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
