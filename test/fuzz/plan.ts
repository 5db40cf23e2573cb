// Which requests the fuzz run sends, in which order: first a sweep that gives every target every
// kind of mutation and every variant at least once, then random picks until the time is up.
import { contentTypeFamily, encodingFamily, jsonFamily, streamFamily, syntaxFamily } from './body-cases.js';
import { floodFamily, formFamily } from './flood-cases.js';
import { FRESH_TOKEN, MAIN_TOKEN, OWN_SID, setHeader, type Draft, type Family, type GenContext } from './draft.js';
import { graphqlArgsFamily, graphqlDocumentFamily, graphqlTransportFamily } from './graphql-cases.js';
import { goodOperation } from './graphql-doc.js';
import { brokenUpload, goodUpload, UPLOAD_VARIANTS } from './multipart.js';
import { authFamily, headersFamily, methodFamily, pathFamily, queryFamily } from './request-cases.js';
import type { Target } from './targets.js';
import { fromSchema, hinted } from './values.js';

/** Requests that may end the session they carry are sent with a new user's session. */
export const endsSession = (t: Target) => /logout|revokeSession|deleteAccount|sessions\/\{id\}|^DELETE \/api\/v1\/users\/me$/i.test(t.name);
export const isUpload = (t: Target) => (t.transport === 'rest' ? !!t.body?.multipart : t.field.name === 'uploadAvatar');

/**
 * A request to `t` that the service should accept, or refuse only for what it means (a wrong code).
 * `fixed` gives path parameters as they are to be sent (already percent-encoded) instead of drawn ones.
 */
export function goodDraft(t: Target, g: GenContext, multipart = isUpload(t), fixed: Record<string, string> = {}): Draft {
  const token = endsSession(t) ? FRESH_TOKEN : MAIN_TOKEN;
  const d: Draft = { method: 'POST', path: '/graphql', headers: [['User-Agent', 'meeting-accounts-fuzz']], framing: 'auto', version: 'HTTP/1.1', delivery: { ending: 'wait' } };
  if (t.transport === 'rest') {
    d.method = t.method;
    d.path = t.template.replace(/\{(\w+)\}/g, (_, name: string) => {
      if (fixed[name] !== undefined) return fixed[name];
      const shown = t.pathValues?.[name];
      if (shown) return g.rng.pick(shown);
      // The operators' routes act on a real account of the run (not the main user's) half the time.
      if (name === 'id' && t.template.startsWith('/api/v1/admin/') && g.rng.chance(0.5)) return g.known.forged.userId;
      return name === 'id' && g.rng.chance(0.7) ? OWN_SID : encodeURIComponent(String(hinted(name, g.rng, g.known) ?? g.rng.chars(8)));
    });
    const query = t.query.filter(() => g.rng.chance(0.6)).map((p) => `${p.name}=${encodeURIComponent(String(fromSchema(p.schema, p.name, g.rng, g.known)))}`);
    if (query.length > 0) d.path += `?${query.join('&')}`;
    if (t.auth === 'bearer') d.headers.push(['Authorization', `Bearer ${token}`]);
    if (t.auth === 'internal') d.headers.push(['X-Internal-Key', g.internalKey]);
    if (t.body && !t.body.multipart) {
      d.headers.push(['Content-Type', 'application/json']);
      d.json = fromSchema(t.body.schema, '', g.rng, g.known);
    }
  } else {
    d.headers.push(['Authorization', `Bearer ${token}`], ['Content-Type', 'application/json']);
    const op = goodOperation(t, g.rng, g.known);
    if (op.variables?.id !== undefined && t.field.name.startsWith('admin') && g.rng.chance(0.5)) op.variables.id = g.known.forged.userId;
    else if (op.variables?.id !== undefined && g.rng.chance(0.7)) op.variables.id = OWN_SID;
    d.json = op;
  }
  if (multipart) {
    const upload = goodUpload({ rng: g.rng, image: g.rng.pick(g.images), tooLarge: g.tooLarge, graphql: t.transport === 'graphql' });
    d.json = undefined;
    d.body = upload.body;
    setHeader(d, 'Content-Type', upload.contentType);
    if (t.transport === 'graphql') d.headers.push(['Apollo-Require-Preflight', 'true']);
  }
  return d;
}

const cutEnding = { 'then close': 'destroy', 'then reset': 'reset', 'then half-close': 'half-close' } as const;

/** Uploads: broken multipart bodies, and good ones cut off or sent slowly. */
const uploadFamily: Family = {
  name: 'upload',
  applies: isUpload,
  variants: {
    ...Object.fromEntries(
      Object.keys(UPLOAD_VARIANTS).map((name) => [
        name,
        (d: Draft, t: Target, g: GenContext) => {
          const upload = brokenUpload(name, { rng: g.rng, image: g.rng.pick(g.images), tooLarge: g.tooLarge, graphql: t.transport === 'graphql' });
          d.body = upload.body;
          setHeader(d, 'Content-Type', upload.contentType);
          setHeader(d, 'Apollo-Require-Preflight', t.transport === 'graphql' && upload.preflight ? 'true' : undefined);
          if (name === 'no closing boundary') d.delivery = { ending: 'half-close' };
        },
      ]),
    ),
    ...Object.fromEntries(
      Object.entries(cutEnding).map(([label, ending]) => [
        `cut at a random byte, ${label}`,
        (d: Draft, _t: Target, g: GenContext) => {
          d.cut = g.rng.next();
          d.delivery = { ending, afterMs: g.rng.pick([0, 0, 5, 50]) };
        },
      ]),
    ),
    'cut at a random byte, wait, then close': (d, _t, g) => {
      d.cut = 0.3 + 0.7 * g.rng.next();
      d.delivery = { ending: 'destroy', afterMs: g.rng.int(100, 2500) };
    },
    'sent slowly, then dropped': (d, _t, g) => {
      d.cut = 0.5 + 0.5 * g.rng.next();
      d.delivery = { ending: g.rng.pick(['destroy', 'reset'] as const), dribble: { bytes: g.rng.pick([16, 128]), pauseMs: g.rng.int(5, 20) } };
    },
  },
};

const valid: Family = { name: 'valid', applies: () => true, variants: { 'good request': () => undefined } };

const FAMILIES: Family[] = [
  valid,
  authFamily,
  pathFamily,
  queryFamily,
  methodFamily,
  headersFamily,
  streamFamily,
  jsonFamily,
  syntaxFamily,
  contentTypeFamily,
  encodingFamily,
  floodFamily,
  formFamily,
  uploadFamily,
  graphqlArgsFamily,
  graphqlDocumentFamily,
  graphqlTransportFamily,
];

/** One request of the plan: what it aims at, how it was made, and the request. */
export interface Planned {
  target: Target;
  family: string;
  variant: string;
  draft: Draft;
}

/** Builds the request for (target, family, variant); another variant of the family if that one does not fit. */
function build(t: Target, family: Family, variant: string, g: GenContext): Planned {
  // The GraphQL families take a JSON operation apart: for the upload mutation too.
  const multipart = isUpload(t) && !family.name.startsWith('graphql-');
  const names = [variant, ...g.rng.shuffle(Object.keys(family.variants).filter((v) => v !== variant))];
  for (const name of names) {
    const d = goodDraft(t, g, multipart);
    if (family.variants[name]!(d, t, g) !== false) return { target: t, family: family.name, variant: name, draft: d };
  }
  return { target: t, family: 'valid', variant: 'good request', draft: goodDraft(t, g, multipart) };
}

/**
 * The first requests after start-up: uploads, all at once, broken in several ways, while nothing
 * has been staged yet (the staging directory does not exist before the first upload).
 */
export function coldStart(targets: Target[], g: GenContext): Planned[] {
  const variants = ['cut at a random byte, then reset', 'cut at a random byte, then close', 'image cut inside', 'sent slowly, then dropped'];
  return targets.filter(isUpload).flatMap((t) => variants.map((v) => build(t, uploadFamily, v, g)));
}

/**
 * The sweep: for each family, as many requests as it has targets or variants (whichever is more),
 * so that each target meets each family and each variant is sent at least once; in random order.
 */
export function sweep(targets: Target[], g: GenContext): Planned[] {
  const plan: Planned[] = [];
  for (const family of FAMILIES) {
    const fits = targets.filter(family.applies);
    const variants = Object.keys(family.variants);
    if (fits.length === 0) continue;
    for (let i = 0; i < Math.max(fits.length, variants.length); i++) plan.push(build(fits[i % fits.length]!, family, variants[i % variants.length]!, g));
  }
  return g.rng.shuffle(plan);
}

/** A random request: a random target, a family that fits it, a random variant; now and then a second mutation on top. */
export function randomPick(targets: Target[], g: GenContext): Planned {
  const target = g.rng.pick(targets);
  const family = g.rng.pick(FAMILIES.filter((f) => f.applies(target)));
  const planned = build(target, family, g.rng.pick(Object.keys(family.variants)), g);
  if (g.rng.chance(0.2) && planned.draft.delivery.ending === 'wait' && planned.draft.cut === undefined) {
    const extra = g.rng.pick([authFamily, streamFamily, headersFamily]);
    const name = g.rng.pick(Object.keys(extra.variants));
    if (extra.variants[name]!(planned.draft, target, g) !== false) planned.variant += ` + ${extra.name}: ${name}`;
  }
  return planned;
}
