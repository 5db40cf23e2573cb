// The field sweep's id spellings (field-sweep.test.ts): every id-like field (a path `{id}`, an `ID`
// argument, a `userId`) given the caller's own real id and another's, in lower case, UPPER CASE,
// Mixed Case and, on a path, with percent-encoded letters; each spelling meets fresh state of its
// own, so that every one should answer as the lower-case one does.
import { getNamedType } from 'graphql';
import { endsSession } from './plan.js';
import type { Session } from './sessions.js';
import { good, idKind, opOf, type Case, type IdKind, type SweepContext } from './sweep-cases.js';
import { stringPaths, withLiterals } from './sweep-fields.js';
import type { GraphQLTarget, Target } from './targets.js';

/** An id's spellings: every one names the same account, session, passkey or delivery. */
export const SPELLINGS: Record<string, (id: string) => string> = {
  'lower case': (id) => id,
  'UPPER CASE': (id) => id.toUpperCase(),
  'Mixed Case': (id) => [...id].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join(''),
};
/** On a path, the letters also percent-encoded (`%45` for `E`), which decodes to the upper-case id. */
export const percentEncoded = (id: string) => id.toUpperCase().replace(/[A-F]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * Fresh state for one spelling of an id of `kind`, so that every spelling meets the same: a new
 * ADMIN acting on their own account (it may block, demote or delete them), a new account acted on
 * by the main ADMIN, a new session or passkey, or the other account's.
 */
async function subject(t: Target, kind: IdKind, whose: string, { fx }: SweepContext): Promise<{ as?: Session; id: string }> {
  const bearer = t.transport === 'graphql' || t.auth === 'bearer';
  switch (`${kind}/${whose}`) {
    case 'user/own': {
      if (!bearer) return { id: fx.main.userId };
      const admin = await fx.admin();
      return { as: admin, id: admin.userId };
    }
    case 'user/another': {
      const user = await fx.user();
      return { as: fx.main, id: user.userId };
    }
    case 'session/own': {
      const user = await fx.user();
      return { as: user, id: user.sid };
    }
    case 'session/another':
      return { as: endsSession(t) ? await fx.user() : fx.main, id: fx.other.sid };
    case 'passkey/own': {
      const user = await fx.user();
      return { as: user, id: await fx.passkey(user) };
    }
    case 'passkey/another':
      return { as: fx.main, id: fx.otherPasskey };
    default:
      return { as: fx.main, id: fx.delivery };
  }
}

type Where = 'path' | 'body' | 'argument';

/** The id-like fields of `t` (path `{id}`, `ID` arguments, `userId`), with their kinds; unknown ones in `uncovered`. */
function idFields(t: Target, uncovered: string[]): { where: Where; name: string; kind: IdKind }[] {
  const fields: [Where, string][] = [];
  if (t.transport === 'graphql') {
    for (const arg of t.field.args) if (getNamedType(arg.type).name === 'ID') fields.push(['argument', arg.name]);
  } else {
    for (const param of t.pathParams) if (/id$/i.test(param)) fields.push(['path', param]);
    for (const path of t.body && !t.body.multipart ? stringPaths(t.body.schema) : []) {
      if (path.length === 1 && /^userId$/i.test(String(path[0]))) fields.push(['body', String(path[0])]);
    }
  }
  const out: { where: Where; name: string; kind: IdKind }[] = [];
  for (const [where, name] of fields) {
    const kind = idKind(t, name);
    if (kind) out.push({ where, name, kind });
    else uncovered.push(`${t.name} ${where} ${name}`);
  }
  return out;
}

/** Every id-like field, given the caller's own and another's real id in each spelling; GraphQL also as a literal. */
export function idCases(targets: Target[], ctx: SweepContext, uncovered: string[]): Case[] {
  const cases: Case[] = [];
  for (const t of targets) {
    for (const { where, name, kind } of idFields(t, uncovered)) {
      for (const whose of kind === 'delivery' ? ['the run'] : ['own', 'another']) {
        const group = `${t.name} ${where} ${name} (${whose})`;
        const spellings = Object.entries(SPELLINGS);
        if (where === 'path') spellings.push(['percent-encoded letters', percentEncoded]);
        const variants: [string, (id: string) => string, boolean][] = spellings.map(([label, spell]) => [label, spell, false]);
        if (where === 'argument') variants.push(['UPPER CASE', SPELLINGS['UPPER CASE']!, true]);
        for (const [label, spell, asLiteral] of variants) {
          cases.push({
            family: 'id spelling',
            variant: `${where} ${name} = ${whose === 'own' ? 'own' : whose === 'another' ? "another's" : "the run's"} ${kind} id in ${label}${asLiteral ? ' (literal)' : ''}`,
            target: t,
            group,
            build: async () => {
              const { as, id } = await subject(t, kind, whose, ctx);
              const built = await good(t, ctx, { as, id: spell(id) });
              if (asLiteral) built.draft.json = withLiterals(t as GraphQLTarget, opOf(built.draft)) ?? built.draft.json;
              return built;
            },
          });
        }
      }
    }
  }
  return cases;
}
