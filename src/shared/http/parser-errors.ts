import { AppError, ErrorCode, msg, type Message } from '../errors/app-error.js';
import { render, type MessageId } from '../i18n/messages.js';

/** What the client is told of one kind of parser failure. */
export interface ParserFailure {
  code: ErrorCode;
  what: Message;
  /** `what` in English, as logs (and AppError's `message`) have it. */
  message: string;
  /** The field named in `fields`, with `problem` (or the message) as its entry. */
  field?: string;
  problem?: Message;
  /** Why this service cannot meet it over HTTP (its configuration rules it out); the mapping stays for a change of configuration. */
  unreachable?: string;
}

const failure = (code: ErrorCode, id: MessageId, field?: string, problem?: MessageId): ParserFailure => {
  const what = msg(id);
  return { code, what, message: render(what, 'en'), field, problem: problem && msg(problem) };
};
const invalid = (id: MessageId, field?: string, problem?: MessageId) => failure(ErrorCode.VALIDATION_FAILED, id, field, problem);
const tooLarge = (id: MessageId) => failure(ErrorCode.PAYLOAD_TOO_LARGE, id);
const unsupported = (id: MessageId) => failure(ErrorCode.UNSUPPORTED_MEDIA_TYPE, id);

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
  'entity.too.large': tooLarge('parser.bodyTooLarge'),
  'parameters.too.many': tooLarge('parser.formTooManyFields'),
  'entity.parse.failed': invalid('parser.bodyNotJson', '(body)', 'parser.bodyNotJson.field'),
  'querystring.parse.rangeError': { ...invalid('parser.formTooDeep'), unreachable: 'forms are parsed flat (extended: false)' },
  'entity.verify.failed': { ...invalid('parser.bodyRefused'), unreachable: 'no parser has a verify option' },
  'charset.unsupported': unsupported('parser.charsetUnsupported'),
  'encoding.unsupported': unsupported('parser.encodingUnsupported'),
  'encoding.malformed': invalid('parser.encodingMalformed'),
  'request.aborted': invalid('parser.bodyCutOff'),
  'request.size.invalid': { ...invalid('parser.bodyLength'), unreachable: "Node's HTTP parser holds a body to its Content-Length" },
  'stream.encoding.set': { ...invalid('parser.bodyNotBytes'), unreachable: 'nothing sets an encoding on a request' },
  'stream.not.readable': { ...invalid('parser.bodyReadAlready'), unreachable: 'each body is read by one parser' },
  'query.parameters.too.many': tooLarge('parser.queryTooManyParameters'),
  'path.malformed': invalid('parser.pathMalformed', '(path)', 'parser.pathMalformed.field'),
  'multipart.boundary.missing': invalid('parser.multipartNoBoundary', 'file'),
  'multipart.malformed': invalid('parser.multipartMalformed', 'file'),
  'multipart.aborted': invalid('parser.uploadAborted', 'file'),
  'multipart.parts.too.many': tooLarge('parser.multipartTooManyParts'),
  // An upload takes one file: a second makes a malformed upload (400), as both transports have always answered it.
  'multipart.files.too.many': invalid('parser.multipartOneFile', 'file'),
  'multipart.field.too.large': tooLarge('parser.multipartFieldTooLarge'),
  'multipart.request.invalid': invalid('parser.graphqlMultipartMalformed'),
} as const satisfies Record<string, ParserFailure>;

export type ParserFailureKind = keyof typeof PARSER_FAILURES;

/** The answer to a parser failure of `kind`; `detail` (the parser's own words, when they help the client) follows the message. */
export function parserError(kind: ParserFailureKind, detail?: string): AppError {
  const failure: ParserFailure = PARSER_FAILURES[kind];
  const message = detail ? msg('parser.withDetail', { message: failure.what, detail }) : failure.what;
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
