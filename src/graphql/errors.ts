import { unwrapResolverError } from '@apollo/server/errors';
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError, ErrorCode, msg, renderFields } from '../shared/errors/app-error.js';
import { isServerFault } from '../shared/errors/catalogue.js';
import { toAppError } from '../shared/errors/normalize.js';
import { graphqlExtensions, publicError } from '../shared/errors/public-error.js';
import { localeFromAcceptLanguage, type Locale } from '../shared/i18n/locale.js';
import { render, type Message } from '../shared/i18n/messages.js';
import type { Logger } from '../shared/logger.js';
import type { GraphQLContext } from './context.js';

/** Apollo's codes for request errors: the request, the document or the variables do not fit the schema. */
const REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * What graphql-js adds, without a code, after the 50th wrong value in a request's variables
 * (execute's maxCoercionErrors): the client's mistake like the 50 before it.
 */
const VARIABLE_ERROR_LIMIT = 'Too many errors processing variables, error limit reached. Execution aborted.';

/**
 * Whether Apollo refused the request as the client's mistake: by one of its request error codes, or,
 * for the few it raises without a code (a persisted query of an unknown version, or whose hash does
 * not match), by the 4xx status it gives them; or graphql-js gave up on the variables.
 */
function isRequestError(error: unknown): boolean {
  if (error instanceof AppError) return false;
  if (error instanceof GraphQLError && error.message === VARIABLE_ERROR_LIMIT) return true;
  const extensions = (error as { extensions?: { code?: unknown; http?: { status?: unknown } } } | null)?.extensions;
  const code = extensions?.code;
  const status = extensions?.http?.status;
  return (typeof code === 'string' && REQUEST_CODES.has(code)) || (typeof status === 'number' && status >= 400 && status < 500);
}

/**
 * What was thrown: a resolver's error, or the AppError of a refusal made before execution (see
 * input-checks.ts), which Apollo hands over wrapped and without a path.
 */
function originalOf(error: unknown): unknown {
  const unwrapped = unwrapResolverError(error);
  return unwrapped instanceof GraphQLError && unwrapped.originalError instanceof AppError ? unwrapped.originalError : unwrapped;
}

/**
 * What a formatted error says, kept beside it (a symbol: not serialised) until the answer is sent:
 * Apollo's formatError does not see the request, errorPlugin renders it in the request's locale.
 */
const SAYS = Symbol('says');
type Said = { error: AppError } | { request: Message; fields?: Record<string, Message | string> };
type FormattedError = GraphQLFormattedError & { [SAYS]?: Said };

/** graphql-js's own words about a document or variables that do not fit the schema, quoted in a sentence of the locale. */
const requestMessage = (detail: string): Message => msg('graphql.invalidRequest', { detail });

/** The GraphQL mapping of the error catalogue: `extensions.code` and nothing internal; the message in English until errorPlugin renders it. */
export function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const original = originalOf(error);
  if (isRequestError(original)) {
    // Automatic persisted queries: a hash the server does not know yet. The client then sends the
    // document with it (the protocol Apollo Client's link follows): a code of its own, not a failure,
    // and its message (PersistedQueryNotFound) a token of that protocol, the same in every locale.
    if ((original as { extensions?: { code?: unknown } }).extensions?.code === 'PERSISTED_QUERY_NOT_FOUND') {
      return { message: formatted.message, extensions: { code: ErrorCode.PERSISTED_QUERY_NOT_FOUND } };
    }
    const fields = variableFields(formatted.message);
    const extensions = fields ? { code: ErrorCode.VALIDATION_FAILED, fields: renderFields(fields, 'en') } : { code: ErrorCode.VALIDATION_FAILED };
    const answer: FormattedError = { message: formatted.message, locations: formatted.locations, extensions, [SAYS]: { request: requestMessage(formatted.message), fields } };
    return answer;
  }
  const appError = toAppError(original);
  const shown = publicError(appError, 'en');
  const answer: FormattedError = { message: shown.message, locations: formatted.locations, path: formatted.path, extensions: graphqlExtensions(shown), [SAYS]: { error: appError } };
  return answer;
}

/** `error` (formatted by formatError) with its message, and its fields, in `locale`. */
function inLocale(error: FormattedError, locale: Locale): GraphQLFormattedError {
  const said = error[SAYS];
  if (!said || locale === 'en') return error;
  if ('request' in said) {
    const message = render(said.request, locale);
    return { ...error, message, ...(said.fields && { extensions: { ...error.extensions, fields: renderFields(said.fields, locale) } }) };
  }
  const shown = publicError(said.error, locale);
  return { ...error, message: shown.message, ...(shown.fields && { extensions: { ...error.extensions, fields: shown.fields } }) };
}

/**
 * `formatError` for production: without the suggestions ("Did you mean the enum value …?") that
 * graphql-js writes into the errors of variables it coerces, which hideSchemaDetailsFromClientErrors
 * (validation errors only) and graphql-js's own hideSuggestions (it leaves "[Suggestion hidden]?")
 * do not remove.
 */
export function formatErrorWithoutSuggestions(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  const shown: FormattedError = formatError(formatted, error);
  const fields = shown.extensions?.fields as Record<string, string> | undefined;
  const message = withoutSuggestion(shown.message);
  const said = shown[SAYS];
  const answer: FormattedError = {
    ...shown,
    message,
    ...(fields && { extensions: { ...shown.extensions, fields: withoutSuggestions(fields) } }),
    ...(said && 'request' in said && { [SAYS]: { request: requestMessage(message), fields: said.fields && withoutSuggestions(said.fields) } }),
  };
  return answer;
}

function withoutSuggestions<T extends Message | string>(fields: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? withoutSuggestion(v) : v])) as Record<string, T>;
}

/** GraphQL names cannot hold "?", so a suggestion ends at the first one. */
function withoutSuggestion(message: string): string {
  return message.replace(/ ?(Did you mean [^?]*|\[Suggestion hidden\])\?/g, '');
}

/**
 * A variable that is missing or wrongly typed names its field, as REST does for a body field:
 * `Variable "$input" got invalid value … at "input.phone"; …` -> { phone: … } (graphql-js messages).
 */
function variableFields(message: string): Record<string, Message | string> | undefined {
  const variable = /^Variable "\$(\w+)"/.exec(message)?.[1];
  if (!variable) return undefined;
  const missing = /Field "(\w+)" of required type "[^"]*" was not provided\.$/.exec(message)?.[1];
  const path = [...(/ at "([\w.[\]]+)"; /.exec(message)?.[1] ?? variable).split('.'), ...(missing ? [missing] : [])];
  const key = (path.length > 1 ? path.slice(1) : path).join('.');
  const reason = message.indexOf('; ');
  const detail = / was not provided\.$/.test(message) ? msg('field.required') : reason >= 0 ? message.slice(reason + 2) : message;
  return { [key]: detail };
}

/**
 * Logs unexpected errors, writes each error's message in the request's locale (Accept-Language, else
 * `defaultLocale`) with Content-Language, puts the request id in every error, and answers rate limits
 * with a Retry-After header too.
 */
export function errorPlugin(logger: Logger, defaultLocale: Locale): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            const original = originalOf(error);
            // The client's own mistake (answered as VALIDATION_FAILED): not logged, as graphql-js
            // messages quote the variables, passwords included.
            if (isRequestError(original)) continue;
            const appError = toAppError(original);
            if (isServerFault(appError)) {
              logger.error({ err: appError.cause ?? appError, requestId: contextValue?.requestId, path: error.path }, 'graphql operation failed');
            }
          }
        },
        async willSendResponse({ request, response, contextValue }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          const result = response.body.singleResult;
          const locale = localeFromAcceptLanguage(request.http?.headers.get('accept-language')) ?? defaultLocale;
          response.http.headers.set('content-language', locale);
          response.http.headers.set('vary', 'Accept-Language');
          result.errors = result.errors!.map((error) => {
            const retryAfter = error.extensions?.retryAfter;
            if (typeof retryAfter === 'number') response.http.headers.set('retry-after', String(retryAfter));
            const told = inLocale(error, locale);
            return { ...told, extensions: { ...told.extensions, requestId: contextValue?.requestId } };
          });
        },
      };
    },
  };
}

/**
 * An error of an operation served outside Apollo (a subscription over WebSocket), as Apollo would
 * answer it: catalogued code, message in `locale`, the operation's id as its request id.
 */
export function formatOutsideApollo(error: GraphQLError, locale: Locale, requestId: string): GraphQLFormattedError {
  const told = inLocale(formatError(error.toJSON(), error), locale);
  return { ...told, extensions: { ...told.extensions, requestId } };
}
