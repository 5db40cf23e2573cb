// One request of the fuzz run before it is sent: what the generator built and mutated, written out
// as bytes only at sending time (tokens are filled in then).
import type { Rng } from './random.js';
import type { Target } from './targets.js';
import { jsonBytes, type Known } from './values.js';
import type { Delivery } from './wire.js';

/** Stand-ins for values known only when the request is sent. */
export const MAIN_TOKEN = '@@MAIN@@';
/** A session of a new user, for requests that may end the session they are sent with. */
export const FRESH_TOKEN = '@@FRESH@@';
/** The session id of whichever token the request carries. */
export const OWN_SID = '@@SID@@';

export interface Draft {
  method: string;
  /** The request target as sent: path and query string, malformed on purpose at times. */
  path: string;
  headers: [string, string][];
  /** The body as a value, written as JSON unless `body` is set. */
  json?: unknown;
  body?: Buffer;
  /** Bytes after the request (a second request on the same connection), outside its length. */
  trailing?: Buffer;
  /** auto: Content-Length and Connection: close added unless given; none: only the headers given. */
  framing: 'auto' | 'none';
  version: string;
  delivery: Delivery;
  /** Where the request is cut, as a share of its bytes (0-1), when it is cut. */
  cut?: number;
}

export function header(d: Draft, name: string): string | undefined {
  return d.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

export function setHeader(d: Draft, name: string, value: string | undefined): void {
  d.headers = d.headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  if (value !== undefined) d.headers.push([name, value]);
}

/** The body bytes the draft stands for now (JSON written out when no bytes were set). */
export function bodyOf(d: Draft): Buffer {
  if (d.body) return d.body;
  return d.json === undefined ? Buffer.alloc(0) : jsonBytes(d.json);
}

/** The request's bytes, with `fill` applied to the stand-ins of the head and the body. */
export function serialize(d: Draft, host: string, fill: (text: string) => string): Buffer {
  const body = Buffer.from(fill(bodyOf(d).toString('latin1')), 'latin1');
  const headers = d.headers.map(([n, v]) => [n, fill(v)] as const);
  const has = (name: string) => headers.some(([n]) => n.toLowerCase() === name);
  const lines = [`${d.method} ${fill(d.path)} ${d.version}`];
  if (d.framing === 'auto' && !has('host')) lines.push(`Host: ${host}`);
  for (const [n, v] of headers) lines.push(`${n}: ${v}`);
  if (d.framing === 'auto') {
    const bodied = body.length > 0 || ['POST', 'PUT', 'PATCH'].includes(d.method);
    if (bodied && !has('content-length') && !has('transfer-encoding')) lines.push(`Content-Length: ${body.length}`);
    if (!has('connection')) lines.push('Connection: close');
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), body, d.trailing ?? Buffer.alloc(0)]);
}

/** What the generator knows besides the target: randomness, the signed-in user, fixtures. */
export interface GenContext {
  rng: Rng;
  known: Known;
  /** Small valid images (PNG, JPEG, GIF, WebP) for uploads. */
  images: Buffer[];
  internalKey: string;
  /** Bytes to add to an image to take it over the service's avatar limit. */
  tooLarge: number;
}

/** Changes `d` as the variant says; returns false when the variant does not fit the target (another is tried). */
type Variant = (d: Draft, t: Target, g: GenContext) => unknown;

/** A kind of mutation: for which targets it is meant, and its variants by name. */
export interface Family {
  name: string;
  applies: (t: Target) => boolean;
  variants: Record<string, Variant>;
}
