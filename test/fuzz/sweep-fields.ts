// Where the field sweep puts its values: the fields of a request, found from the OpenAPI schema of a
// route or the introspected types of a root field's arguments, and how a value is written there (in
// a path or query string, a JSON body, a GraphQL variable or a literal in the document).
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isScalarType,
  type GraphQLInputType,
} from 'graphql';
import type { Operation } from './graphql-doc.js';
import { pieces } from './graphql-doc.js';
import type { GraphQLTarget } from './targets.js';
import type { JsonSchema } from './values.js';

export type FieldPath = (string | number)[];

/** Scalars whose values are any JSON (the WebAuthn options and responses, an audit entry's detail). */
export const isJsonScalar = (type: GraphQLInputType) => ['JSON', 'JSONObject'].includes(getNamedType(type).name);

/** The paths of the text fields of a JSON schema (enums included: they are text on the wire), nested ones too. */
export function stringPaths(schema: JsonSchema, path: FieldPath = []): FieldPath[] {
  const out: FieldPath[] = [];
  for (const s of schema.anyOf ?? [schema]) {
    const types = [s.type ?? []].flat();
    if (types.includes('string') && s.format !== 'binary') out.push(path);
    if (types.includes('object')) for (const [key, sub] of Object.entries(s.properties ?? {})) out.push(...stringPaths(sub, [...path, key]));
    if (types.includes('array') && s.items) out.push(...stringPaths(s.items, [...path, 0]));
  }
  return out;
}

/** The paths of the object-typed fields of a JSON schema, the body itself (the empty path) first. */
export function objectPaths(schema: JsonSchema, path: FieldPath = []): FieldPath[] {
  const out: FieldPath[] = [];
  for (const s of schema.anyOf ?? [schema]) {
    const types = [s.type ?? []].flat();
    if (types.includes('object')) {
      out.push(path);
      for (const [key, sub] of Object.entries(s.properties ?? {})) out.push(...objectPaths(sub, [...path, key]));
    }
  }
  return out;
}

/** The paths of the text arguments and input fields of a root field (JSON scalars apart: their text is inside a value). */
export function argumentPaths(t: GraphQLTarget): FieldPath[] {
  const walk = (type: GraphQLInputType, path: FieldPath): FieldPath[] => {
    const nullable = getNullableType(type);
    if (isListType(nullable)) return walk(nullable.ofType, [...path, 0]);
    if (isInputObjectType(nullable)) return Object.values(nullable.getFields()).flatMap((f) => walk(f.type, [...path, f.name]));
    if (isEnumType(nullable)) return [path];
    if (isScalarType(nullable) && !isJsonScalar(nullable) && !['Int', 'Float', 'Boolean', 'Upload'].includes(nullable.name)) return [path];
    return [];
  };
  return t.field.args.flatMap((a) => walk(a.type, [a.name]));
}

/** The paths of the text leaves of a JSON value. */
export function textLeaves(value: unknown, path: FieldPath = []): FieldPath[] {
  if (typeof value === 'string') return [path];
  if (value === null || typeof value !== 'object') return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([k, v]) => textLeaves(v, [...path, k]));
}

/** Sets `value` at `path` inside `root`, making the objects and arrays on the way; returns the root. */
export function place(root: unknown, path: FieldPath, value: unknown): unknown {
  if (path.length === 0) return value;
  const top = root !== null && typeof root === 'object' ? root : typeof path[0] === 'number' ? [] : {};
  let node = top as Record<string | number, unknown>;
  path.forEach((key, i) => {
    if (i === path.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    node[key] = next !== null && typeof next === 'object' ? next : typeof path[i + 1] === 'number' ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  });
  return top;
}

/**
 * Percent-encodes `text` for a path or query string: unreserved characters as they are, the rest as
 * UTF-8 bytes, and a lone surrogate as the three bytes UTF-8 would give its code point (invalid
 * UTF-8, the only way a URL can try to carry one).
 */
export function urlEncode(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    const bytes =
      code >= 0xd800 && code <= 0xdfff
        ? Buffer.from([0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)])
        : Buffer.from(ch, 'utf8');
    out += /^[A-Za-z0-9\-_.~]$/.test(ch) ? ch : [...bytes].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** `path` (a request target) with query parameter `name` set to `encoded` (in place of the one it had). */
export function withQueryParam(path: string, name: string, encoded: string): string {
  const [base, query = ''] = path.split(/\?(.*)/s);
  const kept = query.split('&').filter((p) => p !== '' && p.split('=')[0] !== name);
  return `${base}?${[...kept, `${name}=${encoded}`].join('&')}`;
}

/** A GraphQL literal for `value` in a position of `type` (undefined when a JSON key is no GraphQL name). */
function literal(value: unknown, type?: GraphQLInputType): string | undefined {
  if (value === null || value === undefined) return 'null';
  const nullable = type && getNullableType(type);
  if (nullable && isEnumType(nullable) && typeof value === 'string' && /^[_A-Za-z]\w*$/.test(value)) return value;
  if (Array.isArray(value)) {
    const items = value.map((v) => literal(v, nullable && isListType(nullable) ? nullable.ofType : undefined));
    return items.includes(undefined) ? undefined : `[${items.join(', ')}]`;
  }
  if (typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => {
      if (!/^[_A-Za-z]\w*$/.test(k)) return undefined;
      const inner = literal(v, nullable && isInputObjectType(nullable) ? nullable.getFields()[k]?.type : undefined);
      return inner === undefined ? undefined : `${k}: ${inner}`;
    });
    return fields.includes(undefined) ? undefined : `{ ${fields.join(', ')} }`;
  }
  // JSON's escapes (\u0000, \ud800) are GraphQL's too.
  return JSON.stringify(value);
}

/** The operation with every argument written as a literal in the document (no variables); undefined if one cannot be. */
export function withLiterals(t: GraphQLTarget, op: Operation): Operation | undefined {
  const { keyword, selection } = pieces(t);
  const args: string[] = [];
  for (const arg of t.field.args) {
    const value = op.variables?.[arg.name];
    if (value === undefined) continue;
    const text = literal(value, arg.type);
    if (text === undefined) return undefined;
    args.push(`${arg.name}: ${text}`);
  }
  return { query: `${keyword} Sweep { ${t.field.name}${args.length > 0 ? `(${args.join(', ')})` : ''} ${selection} }` };
}
