// Values for request fields: good ones (by the field's name and JSON schema) and odd ones (wrong
// types, edge numbers, hostile strings), plus JSON texts that JSON.stringify cannot write.
import type { Rng } from './random.js';

/** Bytes put as they are into a JSON text: numbers that JSON.parse cannot hold, invalid UTF-8. */
export class Raw {
  constructor(readonly bytes: Buffer) {}
}

const raw = (text: string | Buffer) => new Raw(Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'));

/** `value` as a JSON text, with every `Raw` inside it written verbatim. */
export function jsonBytes(value: unknown): Buffer {
  const pieces: Buffer[] = [];
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      pieces.push(v.bytes);
      return `\u0000raw${pieces.length - 1}\u0000`;
    }
    return v;
  });
  if (text === undefined) return Buffer.alloc(0);
  const out: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(/"\\u0000raw(\d+)\\u0000"/g)) {
    out.push(Buffer.from(text.slice(last, match.index), 'utf8'), pieces[Number(match[1])]!);
    last = match.index + match[0].length;
  }
  out.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(out);
}

/** What the run knows about the signed-in user, for values that should be right. */
export interface Known {
  userId: string;
  phone: string;
  sid: string;
  /** A user of its own whose session the forged tokens name (they may end it). */
  forged: { userId: string; sid: string };
  avatarKey?: string;
  cursor?: string;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Mobile numbers the phone parser accepts, in other regions than the default one (CN). */
const FOREIGN_MOBILES = ['+447400123456', '+819012345678', '+4915112345678', '+33612345678', '+919812345678', '+5511987654321', '+61412345678'];

/** A phone number: a new valid one mostly, else the user's own, a foreign one, or a malformed one. */
function phone(rng: Rng, known: Known): string {
  const roll = rng.next();
  if (roll < 0.45) return `+86138${rng.digits(8)}`;
  if (roll < 0.55) return `139${rng.digits(8)}`;
  if (roll < 0.65) return known.phone;
  if (roll < 0.75) return rng.pick(FOREIGN_MOBILES);
  return rng.pick([
    '+', '+0', '+86', '+8613800138000000000000', '13800', 'abc', '１３８００１３８０００', '+86 138-0013-8000',
    'tel:+8613800138000', '+86\u000013800138000', '\u202e+8613800138000', '+86١٣٨٠٠١٣٨٠٠٠', '00861380013800',
    '+999999999999999', ' ', '+8613800138000;ext=1', '+1' + '9'.repeat(200),
  ]);
}

/** A good value for a field, by its name; undefined when the name says nothing. */
export function hinted(name: string, rng: Rng, known: Known): unknown {
  const n = name.toLowerCase();
  if (n === 'phone') return phone(rng, known);
  if (n === 'code') return rng.digits(6);
  if (n.endsWith('password')) return `Fuzz-${rng.chars(10)}-pass!`;
  if (n === 'nickname') return rng.pick(['Fuzzy', 'ünïcödé', '漢字の名前', 'a', 'x'.repeat(32)]);
  if (n === 'refreshtoken') return rng.chars(43, BASE64URL);
  if (n === 'userid') return known.userId;
  if (n === 'meetingid') return `meeting-${rng.chars(8)}`;
  if (n === 'joinedat') return new Date(Date.now() - rng.int(60, 86_400) * 1000).toISOString();
  if (n === 'leftat') return new Date(Date.now() - rng.int(0, 59) * 1000).toISOString();
  if (n === 'id') return rng.chance(0.7) ? known.sid : rng.uuid();
  if (n === 'key') return known.avatarKey ?? `${rng.chars(16, 'abcdef0123456789')}.webp`;
  if (n === 'cursor' || n === 'after') return known.cursor ?? rng.chars(12, BASE64URL);
  // The operators' search: every form it reads (phone prefixes, national forms, nicknames, ids) and odd ones.
  if (n === 'query') {
    return rng.pick([known.phone, known.phone.slice(0, 6), known.phone.slice(3, 9), '0044 7911', '(415) 555', 'Fuzz', 'fuzzy', '漢字', 'a', '%', '_', '\\', known.forged.userId, known.forged.userId.toUpperCase(), '00', '+', ' ']);
  }
  if (n === 'reason') return rng.pick(['meeting spam', 'x'.repeat(500), ' ', 'ünïcödé']);
  if (n === 'limit' || n === 'first') return rng.int(1, 100);
  if (n === 'allsessions') return rng.chance(0.5);
  return undefined;
}

/** The subset of JSON Schema that the service's OpenAPI document uses. */
export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

/** A value the schema (and the field's name) would accept, as far as a fuzzer needs. */
export function fromSchema(schema: JsonSchema, name: string, rng: Rng, known: Known): unknown {
  if (schema.anyOf) return fromSchema(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0]!, name, rng, known);
  if (schema.enum) return rng.pick(schema.enum);
  const hint = hinted(name, rng, known);
  if (hint !== undefined) return hint;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries(schema.properties ?? {})) {
        if (schema.required?.includes(key) || rng.chance(0.7)) out[key] = fromSchema(sub, key, rng, known);
      }
      return out;
    }
    case 'array':
      return [fromSchema(schema.items ?? {}, name, rng, known)];
    case 'integer':
    case 'number':
      return rng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 1000, 1000));
    case 'boolean':
      return rng.chance(0.5);
    default:
      if (schema.format === 'uuid') return rng.uuid();
      if (schema.format === 'date-time') return new Date().toISOString();
      return rng.chars(Math.min(schema.maxLength ?? 12, 12));
  }
}

/** Strings that have broken parsers, validators and databases elsewhere. */
export function oddString(rng: Rng): string {
  return rng.pick<() => string>([
    () => '',
    () => ' \t\r\n',
    () => 'x'.repeat(rng.pick([33, 129, 513, 4097, 70_000, 120_000])),
    () => '\u0000',
    () => `a\u0000b`,
    () => '\ud800',
    () => '\udfff\ud800',
    () => '😀'.repeat(rng.int(1, 40)),
    () => '\u202e\u200b\u200d\ufeff',
    () => 'e\u0301'.repeat(20),
    () => 'NaN',
    () => 'Infinity',
    () => '-0',
    () => '1e999',
    () => '0x7fffffff',
    () => 'null',
    () => 'undefined',
    () => 'true',
    () => '%ZZ%',
    () => '../../../etc/passwd',
    () => "' OR '1'='1' --",
    () => '${jndi:ldap://127.0.0.1/a}',
    () => '{{7*7}}<script>',
    () => '\u0001\u0002\u001b[31m\u007f',
    () => String.fromCharCode(...rng.bytes(rng.int(1, 64))),
    () => '0000-00-00T00:00:00Z',
    () => '+275760-09-13T00:00:00.000Z',
    () => '-271821-04-20T00:00:00.000Z',
    () => '9999-12-31T23:59:59.999999999Z',
    () => '2024-02-30T25:61:61Z',
  ])();
}

/** A value of any JSON type, chosen to be wrong for most fields. */
export function oddValue(rng: Rng): unknown {
  return rng.pick<() => unknown>([
    () => null,
    () => true,
    () => 0,
    () => -1,
    () => 1.5,
    () => -0,
    () => 1e308,
    () => -1e308,
    () => 2 ** 31,
    () => -(2 ** 31) - 1,
    () => 2 ** 53 + 2,
    () => raw('1e400'),
    () => raw('-1e400'),
    () => raw('123456789012345678901234567890'),
    () => raw('0.0000000000000000000000000000001e-300'),
    () => raw('"\xff\xfe\xc0\xaf"'),
    () => raw(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])),
    () => [],
    () => [1, 'a', null],
    () => ({}),
    () => ({ $ne: null }),
    () => raw('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}}}'),
    () => nested(rng.pick([50, 500, 5000])),
    () => oddString(rng),
    () => oddString(rng),
    () => oddString(rng),
  ])();
}

/** Arrays inside arrays, `depth` deep. */
export function nested(depth: number): Raw {
  return raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

/** Percent-encodes `text` as UTF-8 bytes; unlike encodeURIComponent, lone surrogates too (as U+FFFD). */
export function pct(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}
