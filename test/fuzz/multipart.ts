// multipart/form-data bodies for the avatar upload, REST (one file in `file`) and GraphQL (the
// multipart request specification: operations, map, then the file): good ones and broken ones.
import type { Rng } from './random.js';

interface Part {
  /** Header lines of the part, without their line ends. */
  headers: string[];
  body: Buffer;
}

const CRLF = '\r\n';

function form(boundary: string, parts: Part[], { preamble = '', epilogue = '', close = true, eol = CRLF } = {}): Buffer {
  const out: Buffer[] = [Buffer.from(preamble)];
  for (const part of parts) {
    out.push(Buffer.from(`--${boundary}${eol}${part.headers.map((h) => h + eol).join('')}${eol}`), part.body, Buffer.from(eol));
  }
  if (close) out.push(Buffer.from(`--${boundary}--${eol}${epilogue}`));
  return Buffer.concat(out);
}

const field = (name: string, value: string | Buffer): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"`],
  body: Buffer.isBuffer(value) ? value : Buffer.from(value),
});

const file = (name: string, bytes: Buffer, filename = 'avatar.png', type = 'image/png'): Part => ({
  headers: [`Content-Disposition: form-data; name="${name}"; filename="${filename}"`, `Content-Type: ${type}`],
  body: bytes,
});

const UPLOAD_MUTATION = 'mutation Upload($file: Upload!) { uploadAvatar(file: $file) { id avatarUrl } }';
const OPERATIONS = JSON.stringify({ query: UPLOAD_MUTATION, variables: { file: null }, operationName: 'Upload' });
const MAP = JSON.stringify({ '0': ['variables.file'] });

export interface Upload {
  body: Buffer;
  /** The Content-Type header; undefined: none sent. */
  contentType: string | undefined;
  /** For GraphQL: whether the CSRF preflight header goes with it. */
  preflight: boolean;
}

export interface UploadContext {
  rng: Rng;
  image: Buffer;
  /** Bytes over the avatar limit the service runs with. */
  tooLarge: number;
  graphql: boolean;
}

/** The parts before the file: none for REST, operations and map for GraphQL. */
function lead(graphql: boolean, operations = OPERATIONS, map = MAP): Part[] {
  return graphql ? [field('operations', operations), field('map', map)] : [];
}

function fileField(graphql: boolean): string {
  return graphql ? '0' : 'file';
}

/** A well-formed upload of `image`. */
export function goodUpload({ rng, image, graphql }: UploadContext): Upload {
  const boundary = `----fuzz${rng.chars(16)}`;
  return { body: form(boundary, [...lead(graphql), file(fileField(graphql), image)]), contentType: `multipart/form-data; boundary=${boundary}`, preflight: true };
}

type UploadVariant = (u: UploadContext, boundary: string) => Partial<Upload> & { body: Buffer };

/** Broken uploads, by name; each keeps the rest of a good upload. */
export const UPLOAD_VARIANTS: Record<string, UploadVariant> = {
  'image cut inside': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image.subarray(0, u.rng.int(1, u.image.length - 1)))]) }),
  'random bytes': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.rng.bytes(u.rng.int(1, 4096)))]) }),
  'empty file': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), Buffer.alloc(0))]) }),
  'svg as png': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'a.svg', 'image/svg+xml')]) }),
  'image header then noise': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), Buffer.concat([u.image.subarray(0, 64), u.rng.bytes(2048)]))]) }),
  'over the size limit': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), Buffer.concat([u.image, u.rng.bytes(u.tooLarge)]))]) }),
  'wrong field name': (u, b) => ({ body: form(b, [...lead(u.graphql), file('avatar', u.image)]) }),
  'two files': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image), file(u.graphql ? '1' : 'file', u.image)]) }),
  'many fields': (u, b) => ({ body: form(b, [...lead(u.graphql), ...Array.from({ length: 40 }, (_, i) => field(`f${i}`, 'x')), file(fileField(u.graphql), u.image)]) }),
  // Floods of parts: REST takes 20 fields and 25 parts, GraphQL its two fields and one file.
  'thousands of fields (21 to 10,000)': (u, b) => ({ body: form(b, [...lead(u.graphql), ...Array.from({ length: u.rng.pick([21, 26, 1000, 10_000]) }, (_, i) => field(`f${i}`, 'x')), file(fileField(u.graphql), u.image)]) }),
  'thousands of fields after the file': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image), ...Array.from({ length: u.rng.pick([21, 5000]) }, (_, i) => field(`f${i}`, 'x'))]) }),
  'many files': (u, b) => ({ body: form(b, [...lead(u.graphql), ...Array.from({ length: u.rng.pick([3, 30, 1000]) }, (_, i) => file(u.graphql ? String(i) : 'file', u.image))]) }),
  'a map of many files': (u, b) => ({
    body: form(b, [...lead(true, OPERATIONS, JSON.stringify(Object.fromEntries(Array.from({ length: u.rng.pick([2, 100, 10_000]) }, (_, i) => [String(i), ['variables.file']])))), file('0', u.image)]),
  }),
  'thousands of empty parts': (u, b) => ({ body: form(b, [...lead(u.graphql), ...Array.from({ length: u.rng.pick([30, 5000]) }, () => ({ headers: [], body: Buffer.alloc(0) })), file(fileField(u.graphql), u.image)]) }),
  'no file': (u, b) => ({ body: form(b, [...lead(u.graphql), field(fileField(u.graphql), 'not a file')]) }),
  'no parts': (_u, b) => ({ body: Buffer.from(`--${b}--\r\n`) }),
  'empty body': () => ({ body: Buffer.alloc(0) }),
  'odd filename': (u, b) => ({
    body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image, u.rng.pick(['../../../etc/passwd', 'ä\u0000.png', 'x'.repeat(3000), '', '%ZZ.png', '😀.png']))]),
  }),
  'disposition broken': (u, b) => ({
    body: form(b, [...lead(u.graphql), { headers: [u.rng.pick(['Content-Disposition: form-data; name=', 'Content-Disposition:', 'Content-Disposition: attachment', 'X-Nothing: here']), 'Content-Type: image/png'], body: u.image }]),
  }),
  'part header without colon': (u, b) => ({ body: form(b, [...lead(u.graphql), { headers: ['Content-Disposition form-data name="file"'], body: u.image }]) }),
  'part header huge': (u, b) => ({
    body: form(b, [...lead(u.graphql), { headers: [`Content-Disposition: form-data; name="${fileField(u.graphql)}"; filename="a.png"`, `X-Pad: ${'p'.repeat(u.rng.pick([9000, 70_000]))}`], body: u.image }]),
  }),
  'no closing boundary': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)], { close: false }) }),
  'other boundary in body': (u) => ({ body: form('not-the-boundary', [...lead(u.graphql), file(fileField(u.graphql), u.image)]) }),
  'no boundary parameter': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)]), contentType: 'multipart/form-data' }),
  'odd boundary parameter': (u, b) => ({
    body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)]),
    contentType: u.rng.pick([`multipart/form-data; boundary=`, `multipart/form-data; boundary="${b}`, `multipart/form-data; boundary=${'b'.repeat(200)}`, `multipart/form-data; boundary=${b}; boundary=other`, `multipart/form-data; charset=utf-16; boundary=${b}`]),
  }),
  'preamble and epilogue': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)], { preamble: 'junk\r\n'.repeat(50), epilogue: 'trailing junk' }) }),
  'bare LF line ends': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)], { eol: '\n' }) }),
  'no content type': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)]), contentType: undefined }),
  'base64 transfer encoding': (u, b) => ({
    body: form(b, [...lead(u.graphql), { headers: [`Content-Disposition: form-data; name="${fileField(u.graphql)}"; filename="a.png"`, 'Content-Transfer-Encoding: base64'], body: Buffer.from(u.image.toString('base64')) }]),
  }),
  // The GraphQL multipart request specification, broken (on REST these are stray text fields before the file).
  'operations not JSON': (u, b) => ({ body: form(b, [...lead(true, u.rng.pick(['{', '', 'null', '[]', '"x"', '{"query":1}'])), file(fileField(true), u.image)]) }),
  'map not JSON': (u, b) => ({ body: form(b, [...lead(true, OPERATIONS, u.rng.pick(['{', '', 'null', '[]', '{"0":"variables.file"}', '{"0":[1]}'])), file(fileField(true), u.image)]) }),
  'map to a wrong path': (u, b) => ({
    body: form(b, [
      ...lead(true, OPERATIONS, JSON.stringify({ '0': [u.rng.pick(['variables.nope', 'variables', 'query', 'variables.file.0', 'variables.__proto__.polluted', '0.variables.file', ''])] })),
      file(fileField(true), u.image),
    ]),
  }),
  'map for two files, one sent': (u, b) => ({ body: form(b, [...lead(true, OPERATIONS, JSON.stringify({ '0': ['variables.file'], '1': ['variables.file'] })), file('0', u.image)]) }),
  'file before operations': (u, b) => ({ body: form(b, [file('0', u.image), field('operations', OPERATIONS), field('map', MAP)]) }),
  'batched operations': (u, b) => ({
    body: form(b, [...lead(true, `[${OPERATIONS},${OPERATIONS}]`, JSON.stringify({ '0': ['0.variables.file', '1.variables.file'] })), file('0', u.image)]),
  }),
  'other operation with a file': (u, b) => ({
    body: form(b, [...lead(true, JSON.stringify({ query: u.rng.pick(['{ me { id } }', 'subscription { me { id } }', 'mutation { logout }', '{']), variables: { file: null } })), file('0', u.image)]),
  }),
  'without the preflight header': (u, b) => ({ body: form(b, [...lead(u.graphql), file(fileField(u.graphql), u.image)]), preflight: false }),
};

/** An upload broken as `variant` says. */
export function brokenUpload(variant: string, u: UploadContext): Upload {
  const boundary = `----fuzz${u.rng.chars(16)}`;
  const made = UPLOAD_VARIANTS[variant]!(u, boundary);
  return {
    body: made.body,
    contentType: 'contentType' in made ? made.contentType : `multipart/form-data; boundary=${boundary}`,
    preflight: made.preflight ?? true,
  };
}
