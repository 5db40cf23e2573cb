import { createHash, createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Keys {
  /** Signs access tokens. */
  jwt: KeyObject;
  /** Keys the hashes of verification codes (a KeyObject: a Buffer key costs ~15 µs more per HMAC). */
  codes: KeyObject;
}

/**
 * Derives the service keys from JWT_SECRET, or outside production from a secret generated once and
 * kept in the data directory (so tokens survive restarts). Runs at start-up only.
 */
export function loadKeys(secret: string | undefined, dataDir: string): Keys {
  const master = secret ?? readOrCreateSecret(dataDir);
  return {
    jwt: createSecretKey(Buffer.from(master, 'utf8')),
    codes: createSecretKey(Buffer.from(hkdfSync('sha256', master, 'meeting-accounts', 'verification-codes', 32))),
  };
}

function readOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'jwt-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const generated = randomBytes(48).toString('base64url');
    writeFileSync(file, generated, { mode: 0o600, flag: 'wx' });
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
