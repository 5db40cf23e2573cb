// GraphQL operations for one root field, written from the introspected schema: a good one (variables
// by the arguments' types and names), and the pieces the mutations of cases.ts take apart.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
} from 'graphql';
import type { Rng } from './random.js';
import type { GraphQLTarget } from './targets.js';
import { hinted, type Known } from './values.js';

export interface Operation {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** The selection set for a field of `type`: every scalar field, objects `depth` levels down. */
function selectionFor(type: GraphQLOutputType, depth = 2): string {
  const named = getNamedType(type);
  if (!isObjectType(named)) return '';
  const fields = Object.values(named.getFields()).filter((f) => f.args.every((a) => !isNonNullType(a.type)));
  const parts: string[] = [];
  for (const field of fields) {
    if (isLeafType(getNamedType(field.type))) parts.push(field.name);
    else if (depth > 0) parts.push(`${field.name} ${selectionFor(field.type, depth - 1)}`);
  }
  return `{ ${parts.length > 0 ? parts.join(' ') : '__typename'} }`;
}

/** A value of an input type, good as far as the field names tell. */
function inputValue(type: GraphQLInputType, name: string, rng: Rng, known: Known): unknown {
  if (isNonNullType(type)) return inputValue(type.ofType, name, rng, known);
  if (isListType(type)) return [inputValue(type.ofType, name, rng, known)];
  if (isInputObjectType(type)) {
    const out: Record<string, unknown> = {};
    for (const field of Object.values(type.getFields())) {
      if (isNonNullType(field.type) || rng.chance(0.7)) out[field.name] = inputValue(field.type, field.name, rng, known);
    }
    return out;
  }
  if (isEnumType(type)) return rng.pick(type.getValues()).name;
  if (type.name === 'Upload') return null;
  const hint = hinted(name, rng, known);
  if (hint !== undefined) return hint;
  switch (type.name) {
    case 'Int':
      return rng.int(1, 50);
    case 'Float':
      return rng.next() * 100;
    case 'Boolean':
      return rng.chance(0.5);
    case 'ID':
      return rng.uuid();
    case 'DateTime':
      return new Date().toISOString();
    default:
      return rng.chars(8);
  }
}

/** The keyword, variable declarations and argument list of an operation on `target`'s field. */
export function pieces(target: GraphQLTarget): { keyword: string; declarations: string; args: string; selection: string } {
  const declared = target.field.args.map((a) => `$${a.name}: ${a.type.toString()}`);
  const args = target.field.args.map((a) => `${a.name}: $${a.name}`);
  return {
    keyword: target.operation,
    declarations: declared.length > 0 ? `(${declared.join(', ')})` : '',
    args: args.length > 0 ? `(${args.join(', ')})` : '',
    selection: selectionFor(target.field.type),
  };
}

/** A well-formed operation on `target`'s field with variables that should pass validation. */
export function goodOperation(target: GraphQLTarget, rng: Rng, known: Known): Operation {
  const { keyword, declarations, args, selection } = pieces(target);
  const variables: Record<string, unknown> = {};
  for (const arg of target.field.args) {
    if (isNonNullType(arg.type) || rng.chance(0.6)) variables[arg.name] = inputValue(arg.type, arg.name, rng, known);
  }
  return { query: `${keyword} Fuzz${declarations} { ${target.field.name}${args} ${selection} }`, variables, operationName: 'Fuzz' };
}

/** Paths to the leaves (scalars, enums, nulls) of a variables object. */
export function leafPaths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    return entries.flatMap(([k, v]) => leafPaths(v, [...path, k]));
  }
  return path.length > 0 ? [path] : [];
}

/** Sets (or, with `remove`, deletes) the value at `path` inside `root`. */
export function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = value;
}

/** The GraphQL type a variable's leaf has, found by walking the argument's type along `path`. */
export function leafType(target: GraphQLTarget, path: (string | number)[]): GraphQLInputType | undefined {
  let type: GraphQLInputType | undefined = target.field.args.find((a) => a.name === path[0])?.type;
  for (const key of path.slice(1)) {
    if (!type) return undefined;
    const nullable = getNullableType(type);
    if (isListType(nullable)) type = nullable.ofType;
    else if (isInputObjectType(nullable)) type = nullable.getFields()[String(key)]?.type;
    else return undefined;
  }
  return type;
}
