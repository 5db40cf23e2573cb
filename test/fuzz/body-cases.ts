// Mutations of how a request's bytes reach the server (cut off, dropped, chunked badly, sent slowly)
// and of JSON bodies: their values, syntax, media type and content coding.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { bodyOf, setHeader, type Draft, type Family } from './draft.js';
import type { Rng } from './random.js';
import type { Target } from './targets.js';
import { jsonBytes, nested, oddString, oddValue, Raw } from './values.js';

const isRest = (t: Target) => t.transport === 'rest';
export const jsonBodied = (t: Target) => (t.transport === 'rest' ? !!t.body && !t.body.multipart : t.field.name !== 'uploadAvatar');
const any = () => true;

/** How long to stay before dropping a connection: at once, or while the server may be working. */
export const afterMs = (rng: Rng) => rng.pick([0, 0, 1, 5, 15, 40]);

export const streamFamily: Family = {
  name: 'stream',
  applies: any,
  variants: {
    'cut, then close': (d, _t, g) => {
      d.cut = g.rng.next();
      d.delivery = { ending: 'destroy', afterMs: afterMs(g.rng) };
    },
    'cut, then reset': (d, _t, g) => {
      d.cut = g.rng.next();
      d.delivery = { ending: 'reset', afterMs: afterMs(g.rng) };
    },
    'cut, then half-close': (d, _t, g) => {
      d.cut = g.rng.next();
      d.delivery = { ending: 'half-close' };
    },
    'cut, wait, then close': (d, _t, g) => {
      d.cut = g.rng.next();
      d.delivery = { ending: 'destroy', afterMs: g.rng.int(100, 1500) };
    },
    'Content-Length too large, then half-close': (d, _t, g) => {
      lengthOf(d, bodyOf(d).length + g.rng.pick([1, 10, 1000, 200_000]));
      d.delivery = { ending: 'half-close' };
    },
    'Content-Length too large, wait, then close': (d, _t, g) => {
      lengthOf(d, bodyOf(d).length + g.rng.pick([1, 100]));
      d.delivery = { ending: 'destroy', afterMs: g.rng.int(50, 1000) };
    },
    'Content-Length too small': (d, _t, g) => {
      const body = bodyOf(d);
      if (body.length < 2) return false;
      lengthOf(d, g.rng.int(0, body.length - 1));
      d.headers.push(['Connection', 'keep-alive']);
      d.delivery = { ending: 'half-close', answers: 2 };
    },
    chunked: (d, _t, g) => {
      d.body = chunked(bodyOf(d), g.rng);
      d.headers.push(['Transfer-Encoding', 'chunked']);
    },
    'chunked with a bad size line': (d, _t, g) => {
      const body = bodyOf(d);
      d.body = Buffer.concat([Buffer.from(`${g.rng.pick(['zz', '-1', 'ffffffffffffffffff', '1 ; ext\u0001', '', '0x10', ' 5'])}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
      d.headers.push(['Transfer-Encoding', 'chunked']);
    },
    'chunked without the last chunk': (d, _t, g) => {
      const full = chunked(bodyOf(d), g.rng);
      d.body = full.subarray(0, full.length - 5);
      d.headers.push(['Transfer-Encoding', 'chunked']);
      d.delivery = { ending: g.rng.pick(['half-close', 'destroy'] as const), afterMs: g.rng.int(0, 300) };
    },
    'chunk larger than its data': (d, _t, g) => {
      const body = bodyOf(d);
      d.body = Buffer.concat([Buffer.from(`${(body.length + g.rng.int(1, 5000)).toString(16)}\r\n`), body]);
      d.headers.push(['Transfer-Encoding', 'chunked']);
      d.delivery = { ending: g.rng.pick(['half-close', 'destroy'] as const), afterMs: g.rng.int(0, 300) };
    },
    'chunked and Content-Length': (d, _t, g) => {
      d.body = chunked(bodyOf(d), g.rng);
      d.headers.push(['Transfer-Encoding', 'chunked'], ['Content-Length', String(g.rng.int(0, 50))]);
    },
    'unknown transfer coding': (d, _t, g) => {
      d.body = chunked(bodyOf(d), g.rng);
      d.headers.push(['Transfer-Encoding', g.rng.pick(['gzip, chunked', 'chunked, gzip', 'xchunked', 'identity', 'chunked, chunked'])]);
    },
    'client gone after sending': (d, _t, g) => {
      d.delivery = { ending: 'destroy', afterMs: afterMs(g.rng) };
    },
    'client reset after sending': (d, _t, g) => {
      d.delivery = { ending: 'reset', afterMs: afterMs(g.rng) };
    },
    'second request on the connection': (d, _t, g) => {
      d.headers.push(['Connection', 'keep-alive']);
      d.trailing = Buffer.from(g.rng.pick(['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'GARBAGE\r\n\r\n', 'POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n{"que']));
      d.delivery = { ending: 'half-close', answers: 2 };
    },
    'slow sender': (d, _t, g) => {
      d.delivery = { ending: 'wait', dribble: { bytes: g.rng.pick([1, 7, 64]), pauseMs: g.rng.int(2, 10) } };
    },
  },
};

/** Sets an explicit Content-Length (the draft's own framing off). */
function lengthOf(d: Draft, length: number): void {
  d.framing = 'none';
  d.headers.push(['Host', '127.0.0.1'], ['Content-Length', String(length)]);
  if (!d.headers.some(([n]) => n.toLowerCase() === 'connection')) d.headers.push(['Connection', 'close']);
}

/** `body` in chunks of random sizes, with the last chunk. */
function chunked(body: Buffer, rng: Rng): Buffer {
  const out: Buffer[] = [];
  for (let offset = 0; offset < body.length; ) {
    const size = Math.min(rng.int(1, 4096), body.length - offset);
    out.push(Buffer.from(`${size.toString(16)}\r\n`), body.subarray(offset, offset + size), Buffer.from('\r\n'));
    offset += size;
  }
  out.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(out);
}

/** The leaf keys of a JSON body object. */
export function keysOf(d: Draft): string[] {
  return d.json !== null && typeof d.json === 'object' && !Array.isArray(d.json) ? Object.keys(d.json) : [];
}

function withField(d: Draft, t: Target, rng: Rng, change: (obj: Record<string, unknown>, key: string) => void): void | false {
  const keys = keysOf(d);
  const schemaKeys = t.transport === 'rest' ? Object.keys(t.body?.schema.properties ?? {}) : [];
  const key = rng.pick([...new Set([...keys, ...schemaKeys])].length > 0 ? [...new Set([...keys, ...schemaKeys])] : ['field']);
  const obj = { ...(d.json as Record<string, unknown>) };
  change(obj, key);
  d.json = obj;
}

export const jsonFamily: Family = {
  name: 'json',
  applies: (t) => isRest(t) && jsonBodied(t),
  variants: {
    'field missing': (d, t, g) => withField(d, t, g.rng, (obj, key) => delete obj[key]),
    'empty object': (d) => {
      d.json = {};
    },
    'field of a wrong type': (d, t, g) => withField(d, t, g.rng, (obj, key) => (obj[key] = oddValue(g.rng))),
    'field null': (d, t, g) => withField(d, t, g.rng, (obj, key) => (obj[key] = null)),
    'odd string in a field': (d, t, g) => withField(d, t, g.rng, (obj, key) => (obj[key] = oddString(g.rng))),
    'extra fields': (d, _t, g) => {
      d.json = { ...(d.json as object), extra: oddValue(g.rng), ['x'.repeat(g.rng.pick([1, 5000]))]: 1, pollution: new Raw(Buffer.from('{"__proto__":{"polluted":true}}')) };
    },
    'not an object': (d, _t, g) => {
      d.json = g.rng.pick<unknown>([[], [d.json], 'string', 123, null, true, nested(g.rng.pick([10, 3000]))]);
    },
    'duplicate keys': (d, _t, g) => {
      const text = jsonBytes(d.json).toString('utf8');
      const key = keysOf(d)[0] ?? 'phone';
      d.body = Buffer.from(text.replace(/^\{/, `{"${key}":${JSON.stringify(oddValue(g.rng) ?? null)},`).replace(/\}$/, `,"${key}":{"a":1}}`));
    },
    'body over the limit': (d, t, g) => withField(d, t, g.rng, (obj, key) => (obj[key] = 'x'.repeat(g.rng.pick([100_000, 150_000, 2_000_000])))),
  },
};

export const syntaxFamily: Family = {
  name: 'syntax',
  applies: jsonBodied,
  variants: {
    'truncated JSON': (d, _t, g) => {
      const body = bodyOf(d);
      d.body = body.subarray(0, g.rng.int(0, Math.max(0, body.length - 1)));
    },
    'trailing garbage': (d, _t, g) => {
      d.body = Buffer.concat([bodyOf(d), Buffer.from(g.rng.pick(['x', '}', ',', '\u0000', ' {}', '\n\n\n[']))]);
    },
    'JSON5-isms': (d, _t, g) => {
      const text = bodyOf(d).toString('utf8');
      d.body = Buffer.from(g.rng.pick([text.replace(/"/g, "'"), `/* c */${text}`, text.replace(/\}$/, ',}'), text.replace(/"(\w+)":/, '$1:'), text.replace(/:"[^"]*"/, ':NaN')]));
    },
    'byte order mark': (d) => {
      d.body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bodyOf(d)]);
    },
    'invalid UTF-8': (d, _t, g) => {
      const body = Buffer.from(bodyOf(d));
      const quote = body.indexOf('"', g.rng.int(0, Math.max(0, body.length - 1)));
      const at = quote >= 0 ? quote + 1 : 0;
      d.body = Buffer.concat([body.subarray(0, at), Buffer.from(g.rng.pick([[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]])), body.subarray(at)]);
    },
    'UTF-16 body': (d, _t, g) => {
      const text = bodyOf(d).toString('utf8');
      d.body = Buffer.concat([g.rng.chance(0.5) ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]);
      if (g.rng.chance(0.5)) setHeader(d, 'Content-Type', 'application/json; charset=utf-16');
    },
    'empty body': (d) => {
      d.body = Buffer.alloc(0);
    },
    'whitespace only': (d) => {
      d.body = Buffer.from(' \r\n\t ');
    },
    'random bytes': (d, _t, g) => {
      d.body = g.rng.bytes(g.rng.int(1, 2048));
    },
    'bare literal': (d, _t, g) => {
      d.body = Buffer.from(g.rng.pick(['null', 'true', '0', '-1', '"x"', '1e400', '[]', '{}']));
    },
    'brackets nested deep': (d, _t, g) => {
      d.body = Buffer.from(g.rng.pick(['[', '{"a":']).repeat(g.rng.pick([1000, 20_000])));
    },
  },
};

export const contentTypeFamily: Family = {
  name: 'content-type',
  applies: jsonBodied,
  variants: {
    'other media type': (d, _t, g) =>
      setHeader(d, 'Content-Type', g.rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'application/octet-stream', 'application/graphql', 'application/*+json', 'application/merge-patch+json', 'image/png'])),
    'multipart without a multipart body': (d, _t, g) => setHeader(d, 'Content-Type', g.rng.pick(['multipart/form-data', 'multipart/form-data; boundary=xyz', 'multipart/mixed; boundary=xyz', 'multipart/form-data; boundary='])),
    'odd charset': (d, _t, g) => setHeader(d, 'Content-Type', `application/json; charset=${g.rng.pick(['utf-16', 'utf-16be', 'utf-32', 'unknown-8bit', '"latin1"', 'utf-7', '', 'ISO-8859-1', 'x'.repeat(300)])}`),
    'malformed media type': (d, _t, g) => setHeader(d, 'Content-Type', g.rng.pick(['application/json;;;', 'application/json, text/plain', 'APPLICATION/JSON', 'application/json; a="unterminated', '/', ';', 'application', 'application/json\u0000', ' application/json '])),
    'no Content-Type': (d) => setHeader(d, 'Content-Type', undefined),
    'form-encoded body': (d, _t, g) => {
      setHeader(d, 'Content-Type', 'application/x-www-form-urlencoded');
      d.body = Buffer.from(g.rng.pick(['phone=%2B8613800138000&code=123456', 'a[b][c]=1&a=2', '%ZZ=%', '=&=&=', 'query=%7B+me+%7B+id+%7D+%7D']));
    },
  },
};

let zipped20MiB: Buffer | undefined;
/** 20 MiB of spaces, gzipped to ~20 kB (made once). */
function bomb(): Buffer {
  zipped20MiB ??= gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x20));
  return zipped20MiB;
}

export const encodingFamily: Family = {
  name: 'content-encoding',
  applies: jsonBodied,
  variants: {
    'gzip, well-formed': (d) => {
      d.body = gzipSync(bodyOf(d));
      d.headers.push(['Content-Encoding', 'gzip']);
    },
    'gzip of garbage or cut off': (d, _t, g) => {
      const zipped = gzipSync(bodyOf(d));
      d.body = g.rng.pick([g.rng.bytes(g.rng.int(1, 200)), zipped.subarray(0, g.rng.int(1, zipped.length - 1)), Buffer.concat([zipped, g.rng.bytes(10)])]);
      d.headers.push(['Content-Encoding', g.rng.pick(['gzip', 'x-gzip'])]);
    },
    'deflate or brotli garbage': (d, _t, g) => {
      const coding = g.rng.pick(['deflate', 'br']);
      const good = coding === 'br' ? brotliCompressSync(bodyOf(d)) : deflateSync(bodyOf(d));
      d.body = g.rng.chance(0.5) ? g.rng.bytes(g.rng.int(1, 200)) : good.subarray(0, Math.max(1, good.length - 3));
      d.headers.push(['Content-Encoding', coding]);
    },
    'compression bomb': (d) => {
      d.body = bomb();
      d.headers.push(['Content-Encoding', 'gzip']);
    },
    'unknown or stacked codings': (d, _t, g) => {
      const coding = g.rng.pick(['x-fuzz', 'compress', 'gzip, gzip', 'identity', 'gzip, identity', '', 'zstd']);
      d.body = coding.startsWith('gzip') ? gzipSync(coding === 'gzip, gzip' ? gzipSync(bodyOf(d)) : bodyOf(d)) : bodyOf(d);
      d.headers.push(['Content-Encoding', coding]);
    },
  },
};
