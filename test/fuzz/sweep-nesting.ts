// The field sweep's cases of nesting: JSON values nested deep or spread wide in every JSON argument
// and object-typed body field, and selections whose nested fields take arguments out of range
// (`AdminUser.securityEvents(first: 0)` under a mutation), directly, through a fragment, an alias
// or a variable.
import { getNamedType, isObjectType, type GraphQLField, type GraphQLOutputType } from 'graphql';
import type { Draft } from './draft.js';
import { pieces, type Operation } from './graphql-doc.js';
import { isUpload } from './plan.js';
import { good, jsonSample, type Case, type SweepContext } from './sweep-cases.js';
import { isJsonScalar, objectPaths, place, type FieldPath } from './sweep-fields.js';
import type { GraphQLTarget, Target } from './targets.js';
import { nested, Raw } from './values.js';

const opOf = (d: Draft) => d.json as Operation;
const objects = (depth: number) => new Raw(Buffer.from(`${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`));

interface Shape {
  name: string;
  value: () => unknown;
  /** Deeper than the 32 levels a JSON argument may have (API.md 9.0). */
  deep: boolean;
}

const SHAPES: Shape[] = [
  { name: 'arrays 40 deep', value: () => nested(40), deep: true },
  { name: 'objects 40 deep', value: () => objects(40), deep: true },
  { name: 'arrays 4,000 deep', value: () => nested(4000), deep: true },
  { name: 'objects 4,000 deep', value: () => objects(4000), deep: true },
  // Past any recursion's stack, however much of it the request has used before (40 and 60 KB).
  { name: 'arrays 20,000 deep', value: () => nested(20_000), deep: true },
  { name: 'objects 10,000 deep', value: () => objects(10_000), deep: true },
  // Wide, and within the 100 KiB body limit.
  { name: '20,000 array elements', value: () => new Array<number>(20_000).fill(0), deep: false },
  { name: '5,000 object keys', value: () => Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])), deep: false },
];
/** Written in the document: 4,000 levels would be past the document's token limit before anything else. */
const LITERAL_SHAPES: [string, string][] = [
  ['arrays 40 deep', `${'['.repeat(40)}${']'.repeat(40)}`],
  ['objects 40 deep', `${'{ a: '.repeat(40)}0${' }'.repeat(40)}`],
];
/** The body itself gets the shapes that matter at its root (the fuzz run sends it wrong in many other ways). */
const ROOT_SHAPES = new Set(['arrays 4,000 deep', 'objects 4,000 deep', 'arrays 20,000 deep', '5,000 object keys']);

/** Every JSON argument and object-typed body field, nested deep and spread wide. */
export function depthCases(targets: Target[], ctx: SweepContext): Case[] {
  const cases: Case[] = [];
  const add = (t: Target, variant: string, deep: boolean, change: (d: Draft) => void) =>
    cases.push({
      family: 'JSON depth',
      variant,
      target: t,
      // The contract bounds the JSON scalar (GraphQL); what REST answers is the class's rule only.
      expect: t.transport === 'graphql' && deep ? 'VALIDATION_FAILED' : undefined,
      build: async () => {
        const built = await good(t, ctx);
        change(built.draft);
        return built;
      },
    });
  for (const t of targets) {
    if (isUpload(t)) continue;
    if (t.transport === 'rest') {
      for (const path of t.body && !t.body.multipart ? objectPaths(t.body.schema) : []) {
        for (const shape of SHAPES.filter((s) => path.length > 0 || ROOT_SHAPES.has(s.name))) {
          add(t, `body ${path.join('.') || '(the body)'} = ${shape.name}`, shape.deep, (d) => (d.json = place(d.json, path, shape.value())));
        }
      }
      continue;
    }
    for (const arg of t.field.args.filter((a) => isJsonScalar(a.type))) {
      for (const shape of SHAPES) {
        add(t, `argument ${arg.name} = ${shape.name}`, shape.deep, (d) => (opOf(d).variables = { ...opOf(d).variables, [arg.name]: shape.value() }));
      }
      for (const [name, text] of LITERAL_SHAPES) {
        add(t, `argument ${arg.name} = ${name} (literal)`, true, (d) => {
          const { keyword, selection } = pieces(t);
          const others = Object.entries(opOf(d).variables ?? {}).filter(([k]) => k !== arg.name);
          const declared = t.field.args.filter((a) => others.some(([k]) => k === a.name));
          const declarations = declared.length > 0 ? `(${declared.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ')})` : '';
          const args = [`${arg.name}: ${text}`, ...declared.map((a) => `${a.name}: $${a.name}`)].join(', ');
          d.json = { query: `${keyword} Sweep${declarations} { ${t.field.name}(${args}) ${selection} }`, variables: Object.fromEntries(others) };
        });
      }
      // Inside a value of the right shape, where a converter has to walk to find it.
      const inside = freeFormMember(jsonSample(t, arg.name));
      for (const shape of inside ? SHAPES.filter((s) => s.deep) : []) {
        add(t, `argument ${arg.name}.${inside!.join('.')} = ${shape.name}`, shape.deep, (d) => {
          const variables = opOf(d).variables ?? {};
          variables[arg.name] = place(variables[arg.name], inside!, shape.value());
          opOf(d).variables = variables;
        });
      }
    }
  }
  return cases;
}

/** The path of a member of `value` that may hold any JSON (an empty object in the sample: `clientExtensionResults`). */
function freeFormMember(value: unknown): FieldPath | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const key = Object.keys(value).find((k) => {
    const v = (value as Record<string, unknown>)[k];
    return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0;
  });
  return key === undefined ? undefined : [key];
}

interface Site {
  /** Fields from the root field's type down to the one that takes arguments (not included). */
  path: string[];
  /** The type that has the field. */
  on: string;
  field: GraphQLField<unknown, unknown>;
}

/** The fields that take arguments in what `type` returns, up to `depth` levels down. */
function sites(type: GraphQLOutputType, depth = 3, path: string[] = []): Site[] {
  const named = getNamedType(type);
  if (!isObjectType(named) || depth === 0) return [];
  return Object.values(named.getFields()).flatMap((field) => [
    ...(field.args.length > 0 ? [{ path, on: named.name, field }] : []),
    ...sites(field.type, depth - 1, [...path, field.name]),
  ]);
}

/** Values out of range for a page's arguments: sizes 0 and 101 (1-100 is the rule), a cursor the service never gave. */
function outOfRange(field: GraphQLField<unknown, unknown>): [string, string, string][] {
  return field.args.flatMap((a): [string, string, string][] => {
    const type = getNamedType(a.type).name;
    if (type === 'Int') return [[a.name, '0', type], [a.name, '101', type]];
    if (type === 'String' && /after|cursor/i.test(a.name)) return [[a.name, '"garbage"', type]];
    return [];
  });
}

/**
 * Every root field whose answer has fields that take arguments (mutations first of all: they must
 * check them before changing anything), with one such argument out of range, written directly,
 * through a fragment, under an alias, or as a variable.
 */
export function nestedArgumentCases(targets: Target[], ctx: SweepContext): Case[] {
  const cases: Case[] = [];
  const graphql = targets.filter((t): t is GraphQLTarget => t.transport === 'graphql' && t.operation !== 'subscription');
  for (const t of graphql) {
    for (const site of sites(t.field.type)) {
      for (const [arg, value, type] of outOfRange(site.field)) {
        for (const how of ['directly', 'through a fragment', 'under an alias', 'as a variable']) {
          cases.push({
            family: 'nested argument',
            variant: `${[...site.path, site.field.name].join('.')}(${arg}: ${value}) ${how}`,
            target: t,
            expect: 'VALIDATION_FAILED',
            build: async () => {
              const built = await good(t, ctx);
              const op = opOf(built.draft);
              const { keyword, declarations, args } = pieces(t);
              const call = `${how === 'under an alias' ? 'page: ' : ''}${site.field.name}(${arg}: ${how === 'as a variable' ? '$sweepPage' : value}) { __typename }`;
              const inner = how === 'through a fragment' ? '...SweepPage' : call;
              const selection = site.path.reduceRight((acc, name) => `${name} { __typename ${acc} }`, inner);
              const declared = how === 'as a variable' ? `(${[declarations.slice(1, -1), `$sweepPage: ${type}`].filter(Boolean).join(', ')})` : declarations;
              const fragment = how === 'through a fragment' ? ` fragment SweepPage on ${site.on} { ${call} }` : '';
              op.query = `${keyword} Sweep${declared} { ${t.field.name}${args} { __typename ${selection} } }${fragment}`;
              op.operationName = 'Sweep';
              if (how === 'as a variable') op.variables = { ...op.variables, sweepPage: JSON.parse(value) };
              return built;
            },
          });
        }
      }
    }
  }
  return cases;
}
