import { z } from 'zod';
import { requiredString } from '../../shared/validation.js';

// Shapes only: which provider exists, whether a token verifies, a result or link token is live, are
// the services' to say. The tokens are opaque, and bounded: an ID token of a platform SDK is a few KiB.

const present = (issue: { input: unknown }, what: string) => (issue.input === undefined ? 'is required' : `must be ${what}`);

/** `{provider}` of a path, or `provider: ID!`: a provider's id as IDENTITY_PROVIDERS names it (an unknown one is NOT_FOUND). */
export const ProviderSchema = z.object({ provider: requiredString(64) });

/** Where a web flow returns: one of OIDC_RETURN_URLS, exactly (checked by the service). */
export const ReturnToSchema = z.object({ returnTo: requiredString(2048) });

/**
 * A web flow's start: where it returns, and the RFC 7636 S256 challenge of a verifier the frontend
 * keeps until the exchange: the flow's result is then exchanged with it only. Optional in shape: the
 * sign-in service requires it unless OIDC_REQUIRE_BINDING=false (a setting, not a shape).
 */
export const StartSchema = ReturnToSchema.extend({
  codeChallenge: z
    .string({ error: (issue) => present(issue, 'a string') })
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be the base64url SHA-256 of the verifier (43 characters, S256)')
    .nullish()
    .transform((challenge) => challenge ?? undefined),
});

/** A web flow's one-time result, from `?result=` of `returnTo`. */
export const ResultSchema = z.object({ result: requiredString(128) });

/** A sign-in flow's result, and the verifier of the challenge its start gave (RFC 7636: 43-128 unreserved characters). */
export const ExchangeSchema = ResultSchema.extend({
  codeVerifier: z
    .string({ error: (issue) => present(issue, 'a string') })
    .regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)')
    .nullish()
    .transform((verifier) => verifier ?? undefined),
});

/** An ID token of a platform SDK, and the nonce the app gave the SDK (raw: the service also accepts its SHA-256 in the token). */
export const IdTokenSchema = z.object({
  idToken: requiredString(16 * 1024),
  nonce: z
    .string({ error: (issue) => present(issue, 'a string') })
    .min(1, 'must not be empty')
    .max(512, 'must be at most 512 characters')
    .nullish()
    .transform((nonce) => nonce ?? undefined),
});

/** The link of an unknown identity to a phone: the PHONE_VERIFICATION_REQUIRED answer's linkToken, the phone, its login code. */
export const LinkByPhoneSchema = z.object({ linkToken: requiredString(128), phone: requiredString(32), code: requiredString(16) });
