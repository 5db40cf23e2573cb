// Parameter floods, and the other limits of each body parser: forms of 21 to 10,000 fields (and past
// 16 KiB, in odd charsets and codings) to the route that reads a form, JSON bodies and GraphQL
// variables of thousands of fields or nested past the depth limit; the query string's and the
// multipart bodies' floods are with their families (request-cases.ts, multipart.ts).
import { gzipSync } from 'node:zlib';
import { afterMs, jsonBodied, keysOf } from './body-cases.js';
import { bodyOf, setHeader, type Draft, type Family } from './draft.js';
import type { Target } from './targets.js';
import { nested, Raw } from './values.js';

/** Routes that read a form (application/x-www-form-urlencoded): the OpenID callback a provider's page posts (response_mode=form_post). */
const takesForm = (t: Target) => t.transport === 'rest' && t.method === 'POST' && t.template.endsWith('/callback');

const FORM_TYPE = 'application/x-www-form-urlencoded';
const formFields = (count: number, name?: string) => Array.from({ length: count }, (_, i) => `${name ?? `f${i}`}=${i}`).join('&');

/** Forms past their parser's limits (20 fields, 16 KiB, UTF-8 or ISO-8859-1, a known coding), and odd ones within them. */
export const formFamily: Family = {
  name: 'form',
  applies: takesForm,
  variants: {
    'a small form': (d, _t, g) => formBody(d, g.rng.pick(['state=a&code=b', 'error=access_denied&state=x', '', 'state=', '=&=', 'state=%ZZ&code=%'])),
    'too many fields (21 to 10,000)': (d, _t, g) => formBody(d, formFields(g.rng.pick([21, 22, 50, 1000, 1500, 5000, 10_000]))),
    'too many fields of one name': (d, _t, g) => formBody(d, formFields(g.rng.pick([21, 500, 10_000]), g.rng.pick(['state', 'code', '__proto__']))),
    'thousands of empty fields': (d, _t, g) => formBody(d, '&'.repeat(g.rng.pick([20, 21, 9999, 16_383]))),
    'bracket, prototype and repeated names': (d, _t, g) => formBody(d, g.rng.pick(['state=a&state=b', 'state[a]=1&code[]=2', 'a[b][c][d][e][f]=1', '__proto__[polluted]=1&constructor[prototype][x]=1', 'state=a&state[b]=c'])),
    'over 16 KiB': (d, _t, g) => formBody(d, `state=${'s'.repeat(g.rng.pick([16 * 1024, 17 * 1024, 200_000]))}`),
    'odd charset': (d, _t, g) => formBody(d, 'state=a&code=b', `${FORM_TYPE}; charset=${g.rng.pick(['utf-16', 'latin1', 'iso-8859-1', 'utf-7', 'x'.repeat(300), '"utf-8"'])}`),
    'odd content coding': (d, _t, g) => {
      formBody(d, 'state=a&code=b');
      const coding = g.rng.pick(['gzip', 'deflate', 'br', 'x-fuzz', 'gzip, gzip']);
      d.body = coding === 'gzip' && g.rng.chance(0.5) ? gzipSync(bodyOf(d)) : g.rng.bytes(g.rng.int(1, 100));
      d.headers.push(['Content-Encoding', coding]);
    },
    'cut off': (d, _t, g) => {
      formBody(d, formFields(g.rng.pick([5, 20, 300])));
      d.cut = g.rng.next();
      d.delivery = { ending: g.rng.pick(['destroy', 'reset', 'half-close'] as const), afterMs: afterMs(g.rng) };
    },
  },
};

function formBody(d: Draft, body: string, type = FORM_TYPE): void {
  d.json = undefined;
  d.body = Buffer.from(body);
  setHeader(d, 'Content-Type', type);
}

/** Where a flood goes: the body of a REST route, the variables of a GraphQL operation. */
function flood(d: Draft, t: Target, value: unknown): void {
  if (t.transport === 'graphql') (d.json as Record<string, unknown>).variables = value;
  else d.json = value;
}

/** JSON bodies past the limits of their parser and of the input checks behind it: thousands of fields, nesting past the depth limit, long arrays. */
export const floodFamily: Family = {
  name: 'flood',
  applies: jsonBodied,
  variants: {
    'thousands of fields': (d, t, g) => flood(d, t, Object.fromEntries(Array.from({ length: g.rng.pick([21, 1000, 5000, 12_000, 40_000]) }, (_, i) => [`f${i}`, i]))),
    'thousands of fields in a field': (d, t, g) => flood(d, t, { input: Object.fromEntries(Array.from({ length: g.rng.pick([2000, 20_000]) }, (_, i) => [i.toString(36), 1])) }),
    'nested past the depth limit': (d, t, g) => {
      const depth = g.rng.pick([33, 65, 200, 5000, 40_000]);
      flood(d, t, new Raw(Buffer.from(`{"phone":"+8613800138000","deep":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`)));
    },
    'arrays nested past the depth limit': (d, t, g) => flood(d, t, { field: nested(g.rng.pick([33, 1000, 45_000])) }),
    'a long array': (d, t, g) => flood(d, t, { items: new Raw(Buffer.from(`[${'0,'.repeat(g.rng.pick([1000, 30_000, 60_000]))}0]`)) }),
    'many repeated keys': (d, _t, g) => {
      const key = keysOf(d)[0] ?? 'query';
      d.body = Buffer.from(`{${`"${key}":1,`.repeat(g.rng.pick([1000, 9000]))}"${key}":2}`);
    },
  },
};
