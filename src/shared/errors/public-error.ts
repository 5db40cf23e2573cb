import type { Locale } from '../i18n/locale.js';
import { msg, render, renderTitle, type Message } from '../i18n/messages.js';
import { AppError, ErrorCode, renderFields } from './app-error.js';
import { describe } from './catalogue.js';

/** What a client is told of an AppError, on either transport, in its locale; REST and GraphQL only lay it out. */
export interface PublicError {
  status: number;
  title: string;
  code: ErrorCode;
  /** The error's own message; for INTERNAL a fixed sentence, as its message may quote internals. */
  message: string;
  fields?: Record<string, string>;
  retryAfter?: number;
  /** Further public members (see AppErrorOptions.details). */
  details?: Record<string, unknown>;
  /** HTTP headers that go with the answer. */
  headers: [name: string, value: string][];
}

/** INTERNAL's fixed sentence: its own message may quote internals. */
const INTERNAL_MESSAGE: Message = msg('error.internal.public');

/** What `error` tells a client whose locale is `locale`. */
export function publicError(error: AppError, locale: Locale): PublicError {
  const { status } = describe(error.code);
  const headers: [string, string][] = [];
  if (error.retryAfter !== undefined) headers.push(['Retry-After', String(error.retryAfter)]);
  if (error.code === ErrorCode.UNAUTHENTICATED) headers.push(['WWW-Authenticate', 'Bearer error="invalid_token"']);
  if (error.allow !== undefined) headers.push(['Allow', error.allow]);
  // Every UNAUTHENTICATED tells its reason (API.md 10.5); one raised without it refused what was presented.
  const details = error.code === ErrorCode.UNAUTHENTICATED ? { reason: 'invalid', ...error.details } : error.details;
  return {
    status,
    title: renderTitle(error.code, locale),
    code: error.code,
    message: render(error.code === ErrorCode.INTERNAL ? INTERNAL_MESSAGE : error.what, locale),
    ...(error.fieldMessages && { fields: renderFields(error.fieldMessages, locale) }),
    ...(error.retryAfter !== undefined && { retryAfter: error.retryAfter }),
    ...(details && { details }),
    headers,
  };
}

/** The `extensions` of a GraphQL error: the code, and the fields or the retry delay when there are. */
export function graphqlExtensions(error: PublicError): Record<string, unknown> {
  const extensions: Record<string, unknown> = { code: error.code };
  if (error.fields) extensions.fields = error.fields;
  if (error.retryAfter !== undefined) extensions.retryAfter = error.retryAfter;
  return { ...error.details, ...extensions };
}
