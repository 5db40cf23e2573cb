import { CombinedGraphQLErrors, ServerError } from '@apollo/client';

/** What a failed request is shown as: the API's own message and error code, when it gave them. */
export interface Problem {
  message: string;
  code?: string;
  extensions: Record<string, unknown>;
}

function fromGraphQL(errors: readonly { message: string; extensions?: Record<string, unknown> }[]): Problem | undefined {
  const first = errors[0];
  if (!first) return undefined;
  const code = typeof first.extensions?.code === 'string' ? first.extensions.code : undefined;
  return { message: first.message, code, extensions: first.extensions ?? {} };
}

/** The problem behind a rejected request: a refusal of the API, an HTTP error, or no answer at all. */
export function problemOf(error: unknown): Problem {
  if (CombinedGraphQLErrors.is(error)) return fromGraphQL(error.errors) ?? { message: error.message, extensions: {} };
  if (ServerError.is(error)) {
    try {
      const body = JSON.parse(error.bodyText) as { errors?: { message: string; extensions?: Record<string, unknown> }[] };
      const found = fromGraphQL(body.errors ?? []);
      if (found) return found;
    } catch {
      // Not JSON: a proxy's page, say.
    }
    return { message: `The service answered HTTP ${error.statusCode}.`, extensions: {} };
  }
  if (error instanceof DOMException && error.name === 'NotAllowedError') {
    return { message: 'The passkey prompt was closed or timed out.', extensions: {} };
  }
  if (error instanceof Error && error.name === 'WebAuthnError') return { message: error.message, extensions: {} };
  return { message: 'The service could not be reached: check the connection, then try again.', extensions: {} };
}

