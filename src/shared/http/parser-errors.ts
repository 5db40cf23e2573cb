import { AppError, ErrorCode } from '../errors/app-error.js';

/** What the client is told of one kind of parser failure. */
export interface ParserFailure {
  code: ErrorCode;
  message: string;
  /** The field named in `fields`, with `problem` (or the message) as its entry. */
  field?: string;
  problem?: string;
  /** Why this service cannot meet it over HTTP (its configuration rules it out); the mapping stays for a change of configuration. */
  unreachable?: string;
}

const invalid = (message: string, field?: string, problem?: string): ParserFailure => ({ code: ErrorCode.VALIDATION_FAILED, message, field, problem });
const tooLarge = (message: string): ParserFailure => ({ code: ErrorCode.PAYLOAD_TOO_LARGE, message });
const unsupported = (message: string): ParserFailure => ({ code: ErrorCode.UNSUPPORTED_MEDIA_TYPE, message });

/**
 * Every failure a parser of the request path can raise, and its answer (API.md 10.0: a 4xx, never
 * INTERNAL; too many fields or parameters 413). The parsers: body-parser 2 over raw-body 3
 * (`express.json` on REST and /graphql, the lean path's reader of POST /graphql, `express.urlencoded`
 * on the OpenID callback), keyed by the `type` they set; zlib, which body-parser inflates a
 * Content-Encoding with; Express's query-string parser (query-string.ts) and the router's path
 * decoding; busboy (readSingleFile on REST) and graphql-upload over busboy (/graphql multipart).
 * test/hardening/parser-errors.test.ts provokes each one.
 */
export const PARSER_FAILURES = {
  'entity.too.large': tooLarge('The body is larger than the limit'),
  'parameters.too.many': tooLarge('The form has too many fields'),
  'entity.parse.failed': invalid('The body is not valid JSON', '(body)', 'must be valid JSON'),
  'querystring.parse.rangeError': { ...invalid('The form is nested too deep'), unreachable: 'forms are parsed flat (extended: false)' },
  'entity.verify.failed': { ...invalid('The body was refused by its check'), unreachable: 'no parser has a verify option' },
  'charset.unsupported': unsupported('The charset of the body is not supported (JSON: UTF-8; forms: UTF-8 or ISO-8859-1)'),
  'encoding.unsupported': unsupported('The Content-Encoding of the body is not supported (gzip, deflate, br, zstd or none)'),
  'encoding.malformed': invalid('The body is not valid for its Content-Encoding'),
  'request.aborted': invalid('The body was cut off: the client went away'),
  'request.size.invalid': { ...invalid('The body does not have the length of its Content-Length'), unreachable: "Node's HTTP parser holds a body to its Content-Length" },
  'stream.encoding.set': { ...invalid('The body could not be read as bytes'), unreachable: 'nothing sets an encoding on a request' },
  'stream.not.readable': { ...invalid('The body could not be read: it was read already'), unreachable: 'each body is read by one parser' },
  'query.parameters.too.many': tooLarge('The query string has too many parameters'),
  'path.malformed': invalid('The path is not valid percent-encoded UTF-8', '(path)', 'must be valid percent-encoded UTF-8'),
  'multipart.boundary.missing': invalid('The multipart body is malformed (boundary missing)', 'file'),
  'multipart.malformed': invalid('The multipart body is malformed or was cut off', 'file'),
  'multipart.aborted': invalid('The upload was aborted', 'file'),
  'multipart.parts.too.many': tooLarge('Too many parts in the multipart body'),
  // An upload takes one file: a second makes a malformed upload (400), as both transports have always answered it.
  'multipart.files.too.many': invalid('Send exactly one file', 'file'),
  'multipart.field.too.large': tooLarge('A field of the multipart body is larger than the limit'),
  'multipart.request.invalid': invalid('The GraphQL multipart request is malformed'),
} as const satisfies Record<string, ParserFailure>;

export type ParserFailureKind = keyof typeof PARSER_FAILURES;

/** The answer to a parser failure of `kind`; `detail` (the parser's own words, when they help the client) follows the message. */
export function parserError(kind: ParserFailureKind, detail?: string): AppError {
  const failure: ParserFailure = PARSER_FAILURES[kind];
  const message = detail ? `${failure.message}: ${detail}` : failure.message;
  return new AppError(failure.code, message, failure.field ? { fields: { [failure.field]: failure.problem ?? message } } : undefined);
}

/** The zlib codes of a body that does not inflate: zlib's own, Brotli's and Zstandard's. */
const DECOMPRESSION = /^(Z_|ERR__|ZSTD_error)/;
/** What a request stream fails with when its client leaves while its body is read. */
const GONE = new Set(['ECONNRESET', 'ECONNABORTED']);

/** The kind of an error raised by body-parser, raw-body (with zlib under it) or the router; undefined for anything else. */
export function bodyErrorKind(error: unknown): ParserFailureKind | undefined {
  const { type, status, code } = (error ?? {}) as { type?: unknown; status?: unknown; code?: unknown };
  if (typeof type === 'string') return Object.hasOwn(PARSER_FAILURES, type) ? (type as ParserFailureKind) : undefined;
  if (status === 400 && error instanceof URIError) return 'path.malformed';
  if (status === 400 && typeof code === 'string') {
    if (DECOMPRESSION.test(code)) return 'encoding.malformed';
    if (GONE.has(code)) return 'request.aborted';
  }
  return undefined;
}

/**
 * The kind of a failure of graphql-upload's processRequest: its http-errors (400 for a request
 * against the multipart spec, 413 for a field too large or a second file, 499 for a client gone) and
 * busboy's plain errors (no boundary, a malformed part header, a form cut off).
 */
export function uploadErrorKind(error: unknown): ParserFailureKind {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
  const said = typeof message === 'string' ? message : '';
  if (status === 413) return /max file uploads exceeded/.test(said) ? 'multipart.files.too.many' : 'multipart.field.too.large';
  if (status === 400) return 'multipart.request.invalid';
  if (status === 499) return 'multipart.aborted';
  return /Boundary not found|content type|Content-Type/i.test(said) ? 'multipart.boundary.missing' : 'multipart.malformed';
}
