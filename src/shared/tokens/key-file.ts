import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { calculateJwkThumbprint } from 'jose';

export type AsymmetricAlgorithm = 'ES256' | 'EdDSA';
export type JwtAlgorithm = 'HS256' | AsymmetricAlgorithm;

/**
 * A signing key as a key file holds it: a private JWK (RFC 7517) with `kid` and `alg`, and, once a
 * newer key has taken over signing, `demotedAt` (ISO 8601): its tokens all expire an access-token
 * lifetime later. `demotedAt` is this service's own member; it is never published.
 */
export interface StoredKey extends JsonWebKey {
  kid: string;
  alg: AsymmetricAlgorithm;
  demotedAt?: string;
}

/** The public half of a key, as published in the JWKS. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  y?: string;
  kid: string;
  alg: AsymmetricAlgorithm;
  use: 'sig';
}

/** A key read from a key file, ready to sign and verify. */
export interface FileKey {
  kid: string;
  alg: AsymmetricAlgorithm;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicJwk;
  demotedAt?: Date;
}

/** A key file that cannot be used; the message names the file and what is wrong. */
export class KeyFileError extends Error {
  constructor(file: string, problem: string) {
    super(`${file}: ${problem}`);
    this.name = 'KeyFileError';
  }
}

/** A new private key for `alg`, its kid the RFC 7638 thumbprint of its public key. */
export async function generateKey(alg: AsymmetricAlgorithm): Promise<StoredKey> {
  const { privateKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { ...jwk, kid: await thumbprint(jwk), alg, use: 'sig' } as StoredKey;
}

/**
 * The keys of one file, in order (the first of the first file signs): a JWK set (`{"keys": [...]}`)
 * of EC P-256 (ES256) and Ed25519 (EdDSA) private keys, or PEM private keys one after another.
 */
export async function readKeyFile(file: string): Promise<FileKey[]> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new KeyFileError(file, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  const keys = text.trimStart().startsWith('{') ? await fromJwkSet(file, text) : await fromPem(file, text);
  if (keys.length === 0) throw new KeyFileError(file, 'holds no key');
  const kids = new Set<string>();
  for (const key of keys) {
    if (kids.has(key.kid)) throw new KeyFileError(file, `kid ${key.kid} appears twice`);
    kids.add(key.kid);
  }
  return keys;
}

/** The stored keys of a JWK set file, as they are, for the keys command to edit. */
export function readJwkSet(file: string): StoredKey[] {
  const text = readFileSync(file, 'utf8');
  if (!text.trimStart().startsWith('{')) throw new KeyFileError(file, 'is not a JWK set (PEM files are rotated by editing them)');
  return parseJwkSet(file, text);
}

/** Writes a JWK set readable by its owner only, in one rename, so that a reader never sees half a file. */
export function writeJwkSet(file: string, keys: readonly StoredKey[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ keys }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, file);
}

function parseJwkSet(file: string, text: string): StoredKey[] {
  let set: unknown;
  try {
    set = JSON.parse(text);
  } catch {
    throw new KeyFileError(file, 'is not valid JSON');
  }
  const keys = (set as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new KeyFileError(file, 'is not a JWK set: it has no "keys" array');
  return keys as StoredKey[];
}

async function fromJwkSet(file: string, text: string): Promise<FileKey[]> {
  return Promise.all(
    parseJwkSet(file, text).map(async (jwk, i) => {
      let privateKey: KeyObject;
      try {
        privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
      } catch {
        throw new KeyFileError(file, `key ${i + 1} is not a private JWK`);
      }
      const key = await describe(file, privateKey, typeof jwk.kid === 'string' ? jwk.kid : undefined);
      if (jwk.alg !== undefined && jwk.alg !== key.alg) throw new KeyFileError(file, `key ${key.kid} says alg ${jwk.alg} but is a ${key.alg} key`);
      if (jwk.demotedAt === undefined) return key;
      const demotedAt = new Date(jwk.demotedAt);
      if (Number.isNaN(demotedAt.getTime())) throw new KeyFileError(file, `key ${key.kid} has a demotedAt that is not a date`);
      return { ...key, demotedAt };
    }),
  );
}

async function fromPem(file: string, text: string): Promise<FileKey[]> {
  const blocks = text.match(/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----/g) ?? [];
  if (blocks.length === 0) throw new KeyFileError(file, 'is neither a JWK set nor PEM private keys');
  return Promise.all(
    blocks.map((block, i) => {
      try {
        return describe(file, createPrivateKey(block));
      } catch (error) {
        throw error instanceof KeyFileError ? error : new KeyFileError(file, `PEM key ${i + 1} cannot be read`);
      }
    }),
  );
}

async function describe(file: string, privateKey: KeyObject, kid?: string): Promise<FileKey> {
  const curve = privateKey.asymmetricKeyDetails?.namedCurve;
  const alg = privateKey.asymmetricKeyType === 'ed25519' ? 'EdDSA' : privateKey.asymmetricKeyType === 'ec' && curve === 'prime256v1' ? 'ES256' : undefined;
  if (!alg) throw new KeyFileError(file, `holds a ${privateKey.asymmetricKeyType} key${curve ? ` on ${curve}` : ''}; only EC P-256 (ES256) and Ed25519 (EdDSA) keys sign tokens`);
  const publicKey = createPublicKey(privateKey);
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const id = kid ?? (await thumbprint({ kty, crv, x, y }));
  return { kid: id, alg, privateKey, publicKey, publicJwk: { kty: kty!, crv: crv!, x: x!, ...(y ? { y } : {}), kid: id, alg, use: 'sig' } };
}

function thumbprint(jwk: JsonWebKey): Promise<string> {
  return calculateJwkThumbprint(jwk as Parameters<typeof calculateJwkThumbprint>[0], 'sha256');
}
