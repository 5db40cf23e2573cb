// Mutations of GraphQL requests for one root field: its variables and arguments, the document
// itself (syntax, limits, operation types, fragments, directives), and how it is carried over HTTP.
import { createHash } from 'node:crypto';
import { getNamedType, isEnumType, isInputObjectType } from 'graphql';
import { bodyOf, setHeader, type Draft, type Family, type GenContext } from './draft.js';
import { leafPaths, leafType, pieces, setAt, type Operation } from './graphql-doc.js';
import type { GraphQLTarget, Target } from './targets.js';
import { jsonBytes, nested, oddString, oddValue, Raw } from './values.js';

const isGraphQL = (t: Target): t is GraphQLTarget => t.transport === 'graphql';

/** The draft's operation (the JSON body of a GraphQL POST). */
const opOf = (d: Draft) => d.json as Operation;

function rootName(t: GraphQLTarget): string {
  return { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' }[t.operation];
}

/** The field with its arguments and selection, as the good operation calls it. */
function call(t: GraphQLTarget): string {
  const { args, selection } = pieces(t);
  return `${t.field.name}${args} ${selection}`;
}

function withLeaf(d: Draft, g: GenContext, change: (path: (string | number)[]) => void): void | false {
  const paths = leafPaths(opOf(d).variables ?? {});
  if (paths.length === 0) return false;
  change(g.rng.pick(paths));
}

/** A GraphQL literal for an argument of `type` that the argument should refuse or find odd. */
function oddLiteral(g: GenContext): string {
  return g.rng.pick([
    '1e999', '-0', '123456789012345678901234567890', '0.0000001e-400', '"\\uD800"', '"\\u{1F600}"', '"\\uZZZZ"', '"""block \\""" string"""',
    '"\\u0000"', 'null', '{}', '[[[1]]]', 'LOGIN', 'login', 'true', `"${'x'.repeat(5000)}"`, '$undefined', '{ phone: 1e999, purpose: NOPE }',
    '{ phone: "+8613800138000", __proto__: 1 }', '[{}]', '"%ZZ"',
  ]);
}

export const graphqlArgsFamily: Family = {
  name: 'graphql-args',
  applies: isGraphQL,
  variants: {
    'variable of a wrong type': (d, _t, g) => withLeaf(d, g, (path) => setAt(opOf(d).variables, path, oddValue(g.rng))),
    'variable missing': (d, _t, g) => withLeaf(d, g, (path) => setAt(opOf(d).variables, g.rng.chance(0.5) ? path.slice(0, 1) : path, undefined, true)),
    'variable null': (d, t, g) => {
      const arg = (t as GraphQLTarget).field.args[0];
      if (!arg) return false;
      opOf(d).variables = { ...opOf(d).variables, [arg.name]: null };
    },
    'extra input fields': (d, t, g) => {
      const variables = opOf(d).variables ?? {};
      const name = (t as GraphQLTarget).field.args.find((a) => isInputObjectType(getNamedType(a.type)))?.name;
      if (!name) return false;
      variables[name] = { ...(variables[name] as object), extra: oddValue(g.rng), __typename: 'X', pollution: new Raw(Buffer.from('{"__proto__":{"polluted":true}}')) };
      opOf(d).variables = variables;
    },
    'wrong enum value': (d, t, g) => {
      const paths = leafPaths(opOf(d).variables ?? {}).filter((p) => {
        const type = leafType(t as GraphQLTarget, p);
        return type !== undefined && isEnumType(getNamedType(type));
      });
      if (paths.length === 0) return false;
      setAt(opOf(d).variables, g.rng.pick(paths), g.rng.pick(['login', 'NOPE', 1, '', 'LOGIN ', '__proto__', ['LOGIN']]));
    },
    'number out of range': (d, t, g) => {
      const paths = leafPaths(opOf(d).variables ?? {}).filter((p) => ['Int', 'Float'].includes(getNamedType(leafType(t as GraphQLTarget, p) ?? ({} as never))?.name ?? ''));
      if (paths.length === 0) return false;
      setAt(opOf(d).variables, g.rng.pick(paths), g.rng.pick<unknown>([2 ** 31, -(2 ** 31) - 1, 1e20, 1.5, '1', new Raw(Buffer.from('1e400')), -1, 0, Number.MAX_SAFE_INTEGER]));
    },
    'variable declared as another type': (d, t, g) => {
      const op = opOf(d);
      if ((t as GraphQLTarget).field.args.length === 0) return false;
      op.query = op.query.replace(/: ([\w[\]!]+)/, `: ${g.rng.pick(['String!', 'Int', '[String!]!', 'Boolean', 'Upload!', 'NoSuchType!', 'SendCodeInput', 'ID'])}`);
    },
    'undeclared variable': (d, t) => {
      const op = opOf(d);
      const target = t as GraphQLTarget;
      op.query = target.field.args.length > 0 ? op.query.replace(/Fuzz\([^)]*\)/, 'Fuzz') : op.query.replace(target.field.name, `${target.field.name}(nope: $nope)`);
    },
    'odd inline literals': (d, t, g) => {
      const target = t as GraphQLTarget;
      const args = target.field.args.map((a) => `${a.name}: ${oddLiteral(g)}`);
      if (args.length === 0) args.push(`nope: ${oddLiteral(g)}`);
      d.json = { query: `${target.operation} { ${target.field.name}(${args.join(', ')}) ${pieces(target).selection} }` };
    },
    'variables not an object': (d, _t, g) => {
      (d.json as Record<string, unknown>).variables = g.rng.pick<unknown>(['{}', [], 1, true, 'null', new Raw(Buffer.from('{"input":')), nested(100)]);
    },
    'huge string variable': (d, _t, g) => withLeaf(d, g, (path) => setAt(opOf(d).variables, path, 'x'.repeat(g.rng.pick([60_000, 99_000, 150_000])))),
    'odd string variable': (d, _t, g) => withLeaf(d, g, (path) => setAt(opOf(d).variables, path, oddString(g.rng))),
  },
};

export const graphqlDocumentFamily: Family = {
  name: 'graphql-document',
  applies: isGraphQL,
  variants: {
    'truncated document': (d, _t, g) => {
      const op = opOf(d);
      op.query = op.query.slice(0, g.rng.int(0, op.query.length - 1));
    },
    'character changed': (d, _t, g) => {
      const op = opOf(d);
      const at = g.rng.int(0, op.query.length - 1);
      op.query = op.query.slice(0, at) + g.rng.pick(['{', '}', '(', ')', '$', '"', '\\', '\u0000', 'é', '#', '...', '@', ':', '!', '[', '\ud800']) + op.query.slice(at + 1);
    },
    'unknown field or argument': (d, t, g) => {
      const op = opOf(d);
      const name = (t as GraphQLTarget).field.name;
      op.query = g.rng.chance(0.5) ? op.query.replace(`${name}`, `nope ${name}`) : op.query.replace(/\{ (\w+)/, '{ $1(nope: 1)');
    },
    'too many aliases': (d, t, g) => {
      const target = t as GraphQLTarget;
      const { keyword, declarations } = pieces(target);
      const n = g.rng.pick([16, 40, 300]);
      opOf(d).query = `${keyword} Fuzz${declarations} { ${Array.from({ length: n }, (_, i) => `a${i}: ${call(target)}`).join(' ')} }`;
    },
    'fragment cycle': (d, t, g) => {
      const target = t as GraphQLTarget;
      const root = rootName(target);
      const { keyword, declarations } = pieces(target);
      opOf(d).query = g.rng.pick([
        `${keyword} Fuzz${declarations} { ...A } fragment A on ${root} { ${call(target)} ...B } fragment B on ${root} { ...A }`,
        `${keyword} Fuzz${declarations} { ...A } fragment A on ${root} { ...A }`,
        `${keyword} Fuzz${declarations} { ${target.field.name} { ...C } } fragment C on Nope { ...C }`,
      ]);
    },
    'inline fragments nested deep': (d, t, g) => {
      const target = t as GraphQLTarget;
      const depth = g.rng.pick([20, 300, 3000]);
      const root = rootName(target);
      opOf(d).query = `${pieces(target).keyword} Fuzz${pieces(target).declarations} { ${`... on ${root} { `.repeat(depth)}${call(target)}${' }'.repeat(depth)} }`;
    },
    'introspection nested deep': (d, _t, g) => {
      const depth = g.rng.pick([8, 30, 200]);
      (d.json as Record<string, unknown>) = {
        query: g.rng.chance(0.5)
          ? `{ __schema { types { fields { type { ${'ofType { '.repeat(depth)}name${' }'.repeat(depth)} } } } } }`
          : `{ __schema { types { ${'fields { type { fields { type { '.repeat(depth)}name${' } } } }'.repeat(depth)} } } }`,
      };
    },
    'selection on a leaf': (d, t) => {
      const target = t as GraphQLTarget;
      opOf(d).query = opOf(d).query.replace(pieces(target).selection, `{ id { id { id } } }`);
    },
    'many directives': (d, t, g) => {
      const name = (t as GraphQLTarget).field.name;
      opOf(d).query = opOf(d).query.replace(name, `${name} ${'@include(if: true) '.repeat(g.rng.pick([51, 400]))}`);
    },
    'odd directives': (d, t, g) => {
      const name = (t as GraphQLTarget).field.name;
      const directive = g.rng.pick(['@skip(if: "x")', '@include', '@nope', '@defer', '@stream(initialCount: 1)', '@deprecated', '@skip(if: $undef)', '@specifiedBy(url: "x")', '@include(if: true, if: false)']);
      opOf(d).query = opOf(d).query.replace(name, `${name} ${directive}`);
    },
    'several operations': (d, t, g) => {
      const op = opOf(d);
      op.query = `${op.query} ${g.rng.pick(['query Other { __typename }', `${(t as GraphQLTarget).operation} Fuzz { __typename }`, '{ __typename }'])}`;
      const name = g.rng.pick<string | undefined>([undefined, 'Other', 'Nope', '']);
      if (name === undefined) delete op.operationName;
      else op.operationName = name;
    },
    'subscription operation': (d, t, g) => {
      const target = t as GraphQLTarget;
      opOf(d).query = g.rng.pick([`subscription Fuzz${pieces(target).declarations} { ${call(target)} }`, 'subscription Fuzz { __typename }', `subscription Fuzz { ${target.field.name} }`]);
    },
    'field under the other root type': (d, t) => {
      const target = t as GraphQLTarget;
      const op = opOf(d);
      op.query = op.query.replace(/^(query|mutation)/, target.operation === 'query' ? 'mutation' : 'query');
    },
    'padded document': (d, _t, g) => {
      const op = opOf(d);
      op.query = g.rng.pick([
        `${'# padding\n'.repeat(g.rng.pick([100, 9000]))}${op.query}`,
        `${' '.repeat(g.rng.pick([2000, 95_000]))}${op.query}`,
        op.query.replace('{', `{ ${'__typename '.repeat(g.rng.pick([600, 1200]))}`),
        op.query.replace('{', `{${','.repeat(50_000)}`),
      ]);
    },
    'long string literal': (d, _t, g) => {
      d.json = { query: `{ __type(name: "${'T'.repeat(g.rng.pick([2000, 90_000]))}") { name } }` };
    },
    'empty or partial document': (d, _t, g) => {
      opOf(d).query = g.rng.pick(['', ' ', '{}', '{ }', 'query', 'fragment F on Query { __typename }', '#only a comment', '{ ... }', '{ __typename }', 'mutation { __typename }', '{ __schema { queryType { name } } }', 'query Fuzz($a: Int = "x") { __typename }']);
      delete opOf(d).operationName;
    },
  },
};

export const graphqlTransportFamily: Family = {
  name: 'graphql-transport',
  applies: isGraphQL,
  variants: {
    'GET with a query string': (d, _t, g) => toGet(d, g, true),
    'GET without the preflight header': (d, _t, g) => toGet(d, g, false),
    'GET with malformed parameters': (d, _t, g) => {
      toGet(d, g, true);
      d.path = `/graphql?${g.rng.pick(['query=%ZZ', 'query=%7B+me+%7B+id+%7D+%7D&variables=%7Bbad', 'query=%7B__typename%7D&variables=%5B%5D', 'query=a&query=b', 'query=%7B__typename%7D&extensions=%7B', 'variables=%7B%7D', 'query=', 'query[]=x', 'query=%7B__typename%7D&operationName[a]=1'])}`;
    },
    // The token limit reads a POST body's query; a GET carries its document in the URL.
    'GET with a document past the limits': (d, _t, g) => {
      toGet(d, g, true);
      const document = g.rng.pick([
        `{${'...on Query{'.repeat(700)}__typename${'}'.repeat(700)}}`,
        `{${Array.from({ length: 600 }, (_, i) => `a${i}:__typename`).join(' ')}}`,
        `{${'__typename '.repeat(1500)}}`,
        '{...A} fragment A on Query{...B} fragment B on Query{...A}',
        `{__schema{types{${'fields{type{fields{type{'.repeat(60)}name${'}}}}'.repeat(60)}}}}`,
      ]);
      d.path = `/graphql?${new URLSearchParams({ query: document }).toString()}`;
    },
    'GET with a very long URL': (d, _t, g) => {
      toGet(d, g, true);
      d.path = `/graphql?query=${encodeURIComponent(`{ __typename ${'# '.repeat(g.rng.pick([3000, 9000]))}}`)}`;
    },
    'query not a string': (d, _t, g) => {
      const body = d.json as Record<string, unknown>;
      if (g.rng.chance(0.2)) delete body.query;
      else body.query = g.rng.pick<unknown>([1, [], { kind: 'Document', definitions: [] }, null, true, nested(50)]);
    },
    'odd operationName': (d, _t, g) => {
      (d.json as Record<string, unknown>).operationName = g.rng.pick<unknown>([1, {}, [], '', 'x'.repeat(10_000), null, 'Nope', '__proto__']);
    },
    'odd extensions': (d, _t, g) => {
      const query = opOf(d).query;
      (d.json as Record<string, unknown>).extensions = g.rng.pick<unknown>([
        'x', 1, [], { persistedQuery: { version: 1, sha256Hash: 'abc' } }, { persistedQuery: { version: 2, sha256Hash: sha256(query) } },
        { persistedQuery: { version: 1, sha256Hash: 1 } }, { persistedQuery: null }, { persistedQuery: 'x' }, { persistedQuery: { version: 1, sha256Hash: sha256(query) } },
      ]);
    },
    'persisted query by hash only': (d, _t, g) => {
      const query = opOf(d).query;
      d.json = { variables: opOf(d).variables, extensions: { persistedQuery: { version: 1, sha256Hash: g.rng.chance(0.5) ? sha256(query) : g.rng.chars(64, '0123456789abcdef') } } };
    },
    'batched operations': (d, _t, g) => {
      const op = d.json;
      d.json = g.rng.pick<unknown>([[op, op], [], [1], [[op]], [op], Array.from({ length: 200 }, () => op)]);
    },
    'document as the body': (d) => {
      d.body = Buffer.from(opOf(d).query);
      setHeader(d, 'Content-Type', 'application/graphql');
    },
    'simple request without the preflight header': (d, _t, g) => {
      d.body = bodyOf(d);
      setHeader(d, 'Content-Type', g.rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'text/plain; charset=utf-8']));
    },
    'incremental delivery asked for': (d, t, g) => {
      const name = (t as GraphQLTarget).field.name;
      setHeader(d, 'Accept', g.rng.pick(['multipart/mixed; deferSpec=20220824', 'multipart/mixed; incrementalSpec=v0.2', 'multipart/mixed', 'text/event-stream']));
      if (g.rng.chance(0.5)) opOf(d).query = opOf(d).query.replace(name, `... @defer { ${name}`).replace(/\}\s*$/, '} }');
    },
  },
};

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The draft's operation as a GET request (query string), with or without Apollo's CSRF header. */
function toGet(d: Draft, g: GenContext, preflight: boolean): void {
  const op = opOf(d);
  const params = new URLSearchParams({ query: op.query });
  if (op.variables !== undefined) params.set('variables', jsonBytes(op.variables).toString('utf8'));
  if (op.operationName !== undefined) params.set('operationName', String(op.operationName));
  d.method = 'GET';
  d.path = `/graphql?${params.toString()}`;
  d.json = undefined;
  d.body = undefined;
  setHeader(d, 'Content-Type', undefined);
  setHeader(d, 'Apollo-Require-Preflight', preflight ? 'true' : undefined);
  if (g.rng.chance(0.3)) setHeader(d, 'Accept', 'application/graphql-response+json');
}

