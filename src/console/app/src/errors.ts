import { CombinedGraphQLErrors, ServerError } from '@apollo/client';
import { apiErrorOf, type ErrorCode } from '../../../client/index';

/** What a failed request is shown as: the API's own message and error code, when it gave them. */
export interface Problem {
  message: string;
  code?: ErrorCode;
  extensions: Record<string, unknown>;
}

/** The problem behind a rejected request: a refusal of the API, an HTTP error, or no answer at all. */
export function problemOf(error: unknown): Problem {
  const refusal = apiErrorOf(error);
  if (refusal) return { message: refusal.message, code: refusal.code, extensions: refusal.extensions };
  if (CombinedGraphQLErrors.is(error)) return { message: error.errors[0]?.message ?? error.message, extensions: {} };
  // Not the API's answer: a proxy's page, say.
  if (ServerError.is(error)) return { message: `The service answered HTTP ${error.statusCode}.`, extensions: {} };
  if (error instanceof DOMException && error.name === 'NotAllowedError') {
    return { message: 'The passkey prompt was closed or timed out.', extensions: {} };
  }
  if (error instanceof Error && error.name === 'WebAuthnError') return { message: error.message, extensions: {} };
  return { message: 'The service could not be reached: check the connection, then try again.', extensions: {} };
}
