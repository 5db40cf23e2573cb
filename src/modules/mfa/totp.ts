import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps. */
const PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step of clock drift either way. */
const WINDOW = 1;

/** A new 160-bit secret (RFC 4226's recommended length) and its otpauth:// URI. */
export function newTotpSecret(issuer: string, label: string): { secret: Uint8Array; base32: string; uri: string } {
  const secret = new Secret({ size: 20 });
  const uri = new TOTP({ ...PARAMS, issuer, label, secret }).toString();
  return { secret: secret.bytes, base32: secret.base32, uri };
}

/** The time step whose code `code` is, within the drift window around `now`; undefined for a wrong code. */
export function totpStep(secret: Uint8Array, code: string, now = Date.now()): number | undefined {
  const delta = TOTP.validate({ ...PARAMS, token: code, secret: new Secret({ buffer: toArrayBuffer(secret) }), timestamp: now, window: WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: PARAMS.period, timestamp: now }) + delta;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}
