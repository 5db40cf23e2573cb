// The requests of the field sweep (field-sweep.test.ts), each a good request with ONE thing changed:
// a text field holding what PostgreSQL cannot store, control characters or 10,000 characters; an id
// spelled in upper or mixed case (or percent-encoded); a JSON value nested deep or spread wide; a
// nested page size out of range in a GraphQL selection. Good requests come from the fuzz run's
// builders, with the real accounts, sessions and passkeys of the run (sweep-fixtures.ts).
import { getNamedType } from 'graphql';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';
import type { Draft, GenContext } from './draft.js';
import type { Operation } from './graphql-doc.js';
import type { Rng } from './random.js';
import { endsSession, goodDraft, isUpload } from './plan.js';
import type { Session } from './sessions.js';
import { argumentPaths, isJsonScalar, place, stringPaths, textLeaves, urlEncode, withLiterals, withQueryParam, type FieldPath } from './sweep-fields.js';
import { PASSKEY_ORIGIN, type Fixtures } from './sweep-fixtures.js';
import type { Target } from './targets.js';

/** What the contract says of a case's answer, beyond what every request of the sweep is held to. */
type Expectation = 'VALIDATION_FAILED' | 'refused';

/** One request of the sweep, built when it is sent (its fixtures are made then). */
export interface Case {
  family: 'text' | 'id spelling' | 'JSON depth' | 'nested argument';
  variant: string;
  target: Target;
  expect?: Expectation;
  /** The cases of a group must be answered alike; the first of each is the lower-case spelling. */
  group?: string;
  build(): Promise<Built>;
}

export interface Built {
  draft: Draft;
  /** Whose token the request carries. */
  as: Session;
  /** The token is a spare session's, which the request may end. */
  spare: boolean;
}

/** What the good requests need: the fuzz run's generator state and the fixtures of the sweep. */
export interface SweepContext {
  g: GenContext;
  fx: Fixtures;
}

export type IdKind = 'user' | 'session' | 'passkey' | 'delivery';

export const opOf = (d: Draft) => d.json as Operation;
const isRegister = (t: Target) => /^(POST \/api\/v1\/auth\/register|Mutation\.register)$/.test(t.name);
const changesPassword = (t: Target) => /^(PUT \/api\/v1\/users\/me\/password|Mutation\.changePassword)$/.test(t.name);
const signsInWithPasskey = (t: Target) => /^(POST \/api\/v1\/auth\/passkey\/login|Mutation\.loginWithPasskey)$/.test(t.name);
const addsPasskey = (t: Target) => /^(POST \/api\/v1\/users\/me\/passkeys|Mutation\.addPasskey)$/.test(t.name);

/** Which of the run's ids a field named `name` of `t` takes, if it takes one. */
export function idKind(t: Target, name: string): IdKind | undefined {
  const where = t.transport === 'rest' ? t.template : t.field.name;
  if (/^userId$/i.test(name)) return 'user';
  if (name !== 'id') return undefined;
  if (/webhook/i.test(where)) return 'delivery';
  if (/admin/i.test(where)) return 'user';
  if (/passkey/i.test(where)) return 'passkey';
  if (/session/i.test(where)) return 'session';
  return undefined;
}

/**
 * A value of the right shape for a WebAuthn `response` (a registration, or a sign-in's assertion),
 * which the service checks for its shape before it finds that it does not verify; none for other fields.
 */
export function jsonSample(t: Target, field: string): unknown {
  if (field !== 'response' || !(addsPasskey(t) || signsInWithPasskey(t))) return undefined;
  const authenticator = new SoftAuthenticator(PASSKEY_ORIGIN);
  const registration = authenticator.register({ challenge: 'c3dlZXA', user: { id: 'c3dlZXA' } });
  return addsPasskey(t) ? registration : authenticator.assert({ challenge: 'c3dlZXA' });
}

/** The id a good request to `t` names, by its kind: the other account, the caller's session or passkey, a real delivery. */
function defaultId(kind: IdKind, as: Session, { fx }: SweepContext): string {
  return { user: fx.other.userId, session: as.sid, passkey: fx.mainPasskey, delivery: fx.delivery }[kind];
}

interface Who {
  /** The caller (by default the main ADMIN; a spare session for requests that may end theirs). */
  as?: Session;
  /** The id as sent: in a path, already percent-encoded. */
  id?: string;
  /** Path parameters as sent (already percent-encoded). */
  path?: Record<string, string>;
}

/**
 * The fuzz run's good values, made good for the sweep: a phone that is valid, a block reason that is
 * not blank, no page cursor (one of another list is refused) and a plain search, so that the one
 * changed field is the only thing wrong with a request.
 */
function sane(value: unknown, rng: Rng): void {
  if (value === null || typeof value !== 'object') return;
  const node = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(node)) {
    if (key === 'phone') node[key] = `+86135${rng.digits(8)}`;
    else if (key === 'reason') node[key] = 'sweep check';
    else if (key === 'query') node[key] = 'sweep';
    else if (key === 'after' || key === 'cursor') delete node[key];
    else sane(v, rng);
  }
}

/** A good request to `t`, with real values where the run has them (codes, registrations, ids). */
export async function good(t: Target, ctx: SweepContext, who: Who = {}): Promise<Built> {
  const { g, fx } = ctx;
  // An operator's field that ends sessions ends the other account's, not the caller's.
  const spare = !who.as && endsSession(t) && !/admin/i.test(t.name);
  // A passkey added, or a first password set, is a new user's (the main user's would pile up or need its password).
  const as = who.as ?? (spare ? await fx.sessions.spare() : addsPasskey(t) || changesPassword(t) ? await fx.user() : fx.main);
  if (t.transport === 'rest') {
    const fixed: Record<string, string> = {};
    if (g.known.avatarKey) fixed.key = g.known.avatarKey;
    const kind = idKind(t, 'id');
    if (kind && t.pathParams.includes('id')) fixed.id = who.id ?? defaultId(kind, as, ctx);
    const draft = goodDraft(t, g, false, { ...fixed, ...who.path });
    const body = draft.json as Record<string, unknown> | undefined;
    sane(body, g.rng);
    const [path, query = ''] = draft.path.split(/\?(.*)/s);
    const params = query.split('&').filter((p) => p !== '' && !['cursor', 'query'].includes(p.split('=')[0]!));
    draft.path = params.length > 0 ? `${path}?${params.join('&')}` : path!;
    if (body && 'userId' in body) body.userId = who.id ?? fx.other.userId;
    if (body && isRegister(t)) Object.assign(body, await fx.registerCode());
    if (body && addsPasskey(t)) body.response = await fx.registration(as);
    if (body && signsInWithPasskey(t)) body.response = jsonSample(t, 'response');
    if (body && changesPassword(t)) delete body.currentPassword;
    return { draft, as, spare };
  }
  const draft = goodDraft(t, g, false);
  const op = opOf(draft);
  const variables = (op.variables ??= {});
  sane(variables, g.rng);
  for (const arg of t.field.args) {
    const kind = getNamedType(arg.type).name === 'ID' ? idKind(t, arg.name) : undefined;
    if (kind) variables[arg.name] = who.id ?? defaultId(kind, as, ctx);
    const sample = isJsonScalar(arg.type) ? jsonSample(t, arg.name) : undefined;
    if (sample !== undefined) variables[arg.name] = sample;
  }
  if (isRegister(t)) Object.assign((variables.input ??= {}) as object, await fx.registerCode());
  if (addsPasskey(t)) variables.response = await fx.registration(as);
  if (changesPassword(t)) delete (variables.input as Record<string, unknown>).currentPassword;
  return { draft, as, spare };
}

interface Text {
  name: string;
  value: string;
  /** PostgreSQL cannot store it (U+0000, a lone surrogate). */
  unstorable?: boolean;
}

const TEXTS: Text[] = [
  { name: 'NUL', value: 'a\u0000b', unstorable: true },
  { name: 'a lone high surrogate', value: '\ud800', unstorable: true },
  { name: 'a lone low surrogate', value: 'x\udfffy', unstorable: true },
  { name: 'C0 controls and an escape sequence', value: 'a\u0001\u001b[31mb' },
  { name: 'DEL', value: 'a\u007fb' },
  { name: 'the C1 control NEL', value: 'a\u0085b' },
  { name: '10,000 characters', value: 'x'.repeat(10_000) },
];
/** The texts also sent as literals in the GraphQL document. */
const LITERAL_TEXTS = new Set(['NUL', 'a lone high surrogate', 'C0 controls and an escape sequence']);

type Where = 'path' | 'query' | 'body' | 'graphql';

/**
 * What the contract settles: text PostgreSQL cannot store is VALIDATION_FAILED in a JSON body or
 * GraphQL argument (API.md 9.0); in a URL, where a lone surrogate can only be invalid UTF-8, a NUL
 * names nothing and is refused (VALIDATION_FAILED or NOT_FOUND: the fix decides). Nicknames and
 * passkey names refuse control characters and more than 32 / 64 characters (API.md 3, README).
 */
function textExpectation(text: Text, where: Where, t: Target, path: FieldPath): Expectation | undefined {
  const field = String(path[path.length - 1]);
  const named = field === 'nickname' || (field === 'name' && /passkey/i.test(t.name));
  if (text.unstorable) return where === 'body' || where === 'graphql' ? 'VALIDATION_FAILED' : text.name === 'NUL' ? 'refused' : undefined;
  return named ? 'VALIDATION_FAILED' : undefined;
}

/** Every text field of every route and root field, given each text of TEXTS in turn. */
export function textCases(targets: Target[], ctx: SweepContext): Case[] {
  const cases: Case[] = [];
  const add = (t: Target, where: Where, path: FieldPath, text: Text, change: (b: Built) => void, asLiteral = false) =>
    cases.push({
      family: 'text',
      variant: `${where} ${path.join('.')} = ${text.name}${asLiteral ? ' (literal)' : ''}`,
      target: t,
      expect: textExpectation(text, where, t, path),
      build: async () => {
        const built = await good(t, ctx);
        change(built);
        return built;
      },
    });
  for (const t of targets) {
    if (isUpload(t)) continue;
    for (const text of TEXTS) {
      if (t.transport === 'rest') {
        for (const name of t.pathParams) {
          const path = { [name]: urlEncode(text.value) };
          cases.push({
            family: 'text',
            variant: `path ${name} = ${text.name}`,
            target: t,
            expect: textExpectation(text, 'path', t, [name]),
            build: () => good(t, ctx, { path }),
          });
        }
        for (const { name } of t.query) add(t, 'query', [name], text, ({ draft }) => (draft.path = withQueryParam(draft.path, name, urlEncode(text.value))));
        for (const path of t.body && !t.body.multipart ? stringPaths(t.body.schema) : []) {
          add(t, 'body', path, text, ({ draft }) => (draft.json = place(draft.json, path, text.value)));
        }
        continue;
      }
      // A JSON argument's text is inside its value; one without a sample value is a text itself.
      const json = t.field.args.filter((a) => isJsonScalar(a.type)).flatMap((a) => (jsonSample(t, a.name) === undefined ? [[a.name]] : textLeaves(jsonSample(t, a.name), [a.name])));
      const paths = [...argumentPaths(t), ...json];
      for (const path of paths) {
        add(t, 'graphql', path, text, ({ draft }) => (opOf(draft).variables = place(opOf(draft).variables, path, text.value) as Record<string, unknown>));
        if (!LITERAL_TEXTS.has(text.name)) continue;
        add(t, 'graphql', path, text, ({ draft }) => {
          const op = opOf(draft);
          op.variables = place(op.variables, path, text.value) as Record<string, unknown>;
          draft.json = withLiterals(t, op) ?? op;
        }, true);
      }
    }
  }
  return cases;
}
