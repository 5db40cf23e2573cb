import { createHash } from 'node:crypto';

// The canonical form of the values that may be used once (API.md 10.0). Base64url has spellings
// that decoders read as the same bytes: padding, whitespace, a last character whose unused low bits
// are set. A record of a use keyed by the caller's bytes would take each spelling for a new value;
// so only the one canonical spelling is ever looked up or recorded, and any other is refused.

/** Unpadded base64url, no whitespace: what `Buffer#toString('base64url')` writes. */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** A compact JWS: three such segments. */
const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;
/** randomToken(): 32 bytes, 43 characters. */
const OPAQUE_TOKEN_LENGTH = 43;

/**
 * Whether `segment` (already known to be of the base64url alphabet) is the encoding of its own
 * decoding: a length that is not 1 mod 4, and a last character whose bits past the data are zero
 * (4 of them after 2 characters of a group, 2 after 3). The same answer as decoding and encoding
 * again, without either.
 */
function canonicalTail(segment: string): boolean {
  const rest = segment.length % 4;
  if (rest === 0) return true;
  if (rest === 1) return false;
  const sextet = valueOf(segment.charCodeAt(segment.length - 1));
  return sextet % (rest === 2 ? 16 : 4) === 0;
}

/** The 6-bit value of a base64url character code (one of the alphabet). */
function valueOf(code: number): number {
  if (code >= 97) return code - 71; // a-z: 26..51
  if (code >= 65) return code === 95 ? 63 : code - 65; // A-Z: 0..25; '_' (95) sorts after 'Z'
  if (code >= 48) return code + 4; // 0-9: 52..61
  return 62; // '-'
}

/** Whether `value` is canonical unpadded base64url (empty is not). */
export function isCanonicalBase64url(value: string): boolean {
  return BASE64URL.test(value) && canonicalTail(value);
}

/** Whether `token` is a compact JWS in canonical form: three canonical base64url segments, nothing around them. */
export function isCanonicalJws(token: string): boolean {
  const parts = COMPACT_JWS.exec(token);
  return parts !== null && canonicalTail(parts[1]!) && canonicalTail(parts[2]!) && canonicalTail(parts[3]!);
}

/**
 * The replay key of an ID token, or undefined when it is not in canonical form (refuse it, before
 * any verification). Keyed on the signing input only: canonical base64url is one-to-one with the
 * header and payload bytes, and the signature is left out because ECDSA signatures are malleable
 * (s and n - s both verify), so a second signature of the same content is the same token.
 */
export function idTokenReplayKey(token: string): string | undefined {
  if (!isCanonicalJws(token)) return undefined;
  return createHash('sha256').update(token.slice(0, token.lastIndexOf('.'))).digest('hex');
}

/**
 * The stored hash of an opaque one-time token this service issued (randomToken()), or undefined
 * when `token` is not one in canonical form: refuse it as an unknown token, before any lookup.
 */
export function oneTimeTokenHash(token: string): string | undefined {
  if (token.length !== OPAQUE_TOKEN_LENGTH || !isCanonicalBase64url(token)) return undefined;
  return createHash('sha256').update(token).digest('hex');
}
