import { createHash, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service secret: JWT_SECRET, or outside production a secret generated once and kept in the
 * data directory (so tokens and codes survive restarts). It signs HS256 tokens and keys the code
 * hashes. Runs at start-up only.
 */
export function serviceSecret(secret: string | undefined, dataDir: string): string {
  return secret ?? readOrCreateSecret(dataDir);
}

/** Keys the hashes of verification codes (a KeyObject: a Buffer key costs ~15 µs more per HMAC). */
export function codeHashKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'meeting-accounts', 'verification-codes', 32)));
}

/** Keys the derivation of a refresh token's successor from the token (see successorToken). */
export function refreshSuccessorKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'meeting-accounts', 'refresh-token-successors', 32)));
}

/**
 * The refresh token that a rotation of `parent` issues: 256 bits written as randomToken() writes
 * them, unguessable without the key, and always the same for the same parent, so that a refresh
 * repeated within the grace window can be answered with it again while only its hash is stored.
 */
export function successorToken(key: KeyObject, parent: string): string {
  return createHmac('sha256', key).update(parent).digest('base64url');
}

/**
 * The key that seals second-factor secrets at rest: MFA_ENCRYPTION_KEY (hex, required in
 * production), or outside production 32 random bytes generated once into `DATA_DIR/mfa-key`. Losing
 * the key loses every TOTP factor, so the generated one is kept like the JWT secret.
 */
export function mfaEncryptionKey(configured: string | undefined, dataDir: string): Buffer {
  return Buffer.from(configured ?? readOrCreateSecret(dataDir, 'mfa-key', () => randomBytes(32).toString('hex')), 'hex');
}

function readOrCreateSecret(dataDir: string, name = 'jwt-secret', generate = () => randomBytes(48).toString('base64url')): string {
  const file = join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const generated = generate();
    try {
      writeFileSync(file, generated, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another instance on the same data directory wrote it first: theirs is the one.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
      throw error;
    }
    return generated;
  }
}

/** 256 random bits, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmacHex(key: KeyObject, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

export function equalHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
