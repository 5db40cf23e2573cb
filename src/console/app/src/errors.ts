import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import { apiErrorOf, type ErrorCode } from '../../../client/index';
import type { Messages } from './i18n/messages';

/** What a failed request is shown as: the API's own message and error code, when it gave them. */
export interface Problem {
  message: string;
  code?: ErrorCode;
  extensions: Record<string, unknown>;
}

/**
 * The problem behind a rejected request: a refusal of the API (its message, in the language the
 * console asked for), an HTTP error, or no answer at all (the console's own words, in its language).
 */
export function problemOf(error: unknown, { t }: Messages): Problem {
  const refusal = apiErrorOf(error);
  if (refusal) return { message: refusal.message, code: refusal.code, extensions: refusal.extensions };
  if (CombinedGraphQLErrors.is(error)) return { message: error.errors[0]?.message ?? error.message, extensions: {} };
  // Not the API's answer: a proxy's page, say.
  if (ServerError.is(error)) return { message: t('error.http', { status: String(error.statusCode) }), extensions: {} };
  if (error instanceof DOMException && error.name === 'NotAllowedError') {
    return { message: t('error.passkeyClosed'), extensions: {} };
  }
  if (error instanceof Error && error.name === 'WebAuthnError') return { message: t('error.passkey', { detail: error.message }), extensions: {} };
  return { message: t('error.unreachable'), extensions: {} };
}
