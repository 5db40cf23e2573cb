import { ErrorCode, type AppError } from './app-error.js';

export interface ErrorDescription {
  status: number;
  title: string;
}

/** HTTP status and problem title of each code; exhaustive, so a new code cannot be forgotten. */
export function describe(code: ErrorCode): ErrorDescription {
  switch (code) {
    case ErrorCode.VALIDATION_FAILED:
      return { status: 400, title: 'Validation failed' };
    case ErrorCode.INVALID_PHONE:
      return { status: 400, title: 'Invalid phone number' };
    case ErrorCode.WEAK_PASSWORD:
      return { status: 400, title: 'Password too weak' };
    case ErrorCode.INVALID_CODE:
      return { status: 400, title: 'Invalid verification code' };
    case ErrorCode.INVALID_CREDENTIALS:
      return { status: 401, title: 'Invalid credentials' };
    case ErrorCode.MFA_REQUIRED:
      return { status: 401, title: 'Second factor required' };
    case ErrorCode.PHONE_VERIFICATION_REQUIRED:
      return { status: 401, title: 'Phone verification required' };
    case ErrorCode.IDENTITY_ALREADY_LINKED:
      return { status: 409, title: 'Identity already linked' };
    case ErrorCode.IDENTITY_PROVIDER_ERROR:
      return { status: 502, title: 'Identity provider error' };
    case ErrorCode.PERSISTED_QUERY_NOT_FOUND:
      return { status: 400, title: 'Persisted query not found' };
    case ErrorCode.UNAUTHENTICATED:
      return { status: 401, title: 'Authentication required' };
    case ErrorCode.REGISTRATION_DISABLED:
      return { status: 403, title: 'Registration disabled' };
    case ErrorCode.FORBIDDEN:
      return { status: 403, title: 'Forbidden' };
    case ErrorCode.ACCOUNT_BLOCKED:
      return { status: 403, title: 'Account blocked' };
    case ErrorCode.NOT_FOUND:
      return { status: 404, title: 'Not found' };
    case ErrorCode.METHOD_NOT_ALLOWED:
      return { status: 405, title: 'Method not allowed' };
    case ErrorCode.REQUEST_TIMEOUT:
      return { status: 408, title: 'Request timeout' };
    case ErrorCode.PHONE_ALREADY_REGISTERED:
      return { status: 409, title: 'Phone already registered' };
    case ErrorCode.MFA_ALREADY_ENABLED:
      return { status: 409, title: 'Second factor already enabled' };
    case ErrorCode.PAYLOAD_TOO_LARGE:
      return { status: 413, title: 'Payload too large' };
    case ErrorCode.UNSUPPORTED_MEDIA_TYPE:
      return { status: 415, title: 'Unsupported media type' };
    case ErrorCode.INVALID_IMAGE:
      return { status: 422, title: 'Invalid image' };
    case ErrorCode.RATE_LIMITED:
      return { status: 429, title: 'Too many requests' };
    case ErrorCode.INTERNAL:
      return { status: 500, title: 'Internal server error' };
    case ErrorCode.SERVICE_UNAVAILABLE:
      return { status: 503, title: 'Service unavailable' };
    case ErrorCode.SMS_DELIVERY_FAILED:
      return { status: 502, title: 'SMS delivery failed' };
    default: {
      const unreachable: never = code;
      throw new Error(`Unknown error code ${String(unreachable)}`);
    }
  }
}

/**
 * Failures on our side (or a provider's) that operators must see in the logs, with the cause; not
 * refusals by policy. An identity provider that is down is logged once, by its module, not per request.
 */
export function isServerFault({ code, byPolicy }: AppError): boolean {
  return !byPolicy && (code === ErrorCode.INTERNAL || code === ErrorCode.SERVICE_UNAVAILABLE || code === ErrorCode.SMS_DELIVERY_FAILED);
}
