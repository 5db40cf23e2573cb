import { createHash, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { existsSync, unwatchFile, watchFile } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { generateKey, readKeyFile, writeJwkSet, type AsymmetricAlgorithm, type JwtAlgorithm, type PublicJwk } from './key-file.js';

/** A key that signs or verifies access tokens. */
export interface TokenKey {
  kid: string;
  alg: JwtAlgorithm;
  signWith: KeyObject;
  /** Pinned to `alg`: a token is checked with this key by this algorithm only. */
  verifyWith: KeyObject;
  /** Published in the JWKS (asymmetric keys only). */
  publicJwk?: PublicJwk;
  /** When a newer key took over signing. */
  demotedAt?: Date;
}

/** Verifiers fetch the JWKS again after this many seconds; a key added is published to them within it. */
export const JWKS_MAX_AGE_SECONDS = 300;

/** Clocks of verifiers may run a little behind ours; a demoted key is kept this long past its tokens' lifetime. */
const CLOCK_LEEWAY_MS = 60_000;

/** Until when a key demoted at `demotedAt` verifies (and is published): its last token's expiry, plus the leeway. */
export function verifiesUntil(demotedAt: Date, accessTtlMs: number): Date {
  return new Date(demotedAt.getTime() + accessTtlMs + CLOCK_LEEWAY_MS);
}

/**
 * The keys of one moment: the first signs; the others verify. A demoted key verifies only while a
 * token it signed can still be live (an access-token lifetime after its demotion), then it is
 * neither accepted nor published.
 */
export class KeyRing {
  private published: { kids: string; body: string; etag: string } | undefined;

  constructor(
    private readonly keys: readonly TokenKey[],
    private readonly accessTtlMs: number,
    /** HS256 only: accepts tokens issued before tokens carried a kid. */
    readonly withoutKid?: TokenKey,
  ) {}

  get signing(): TokenKey {
    return this.keys[0]!;
  }

  /** The key of `kid`, if it may still verify a live token. */
  find(kid: string): TokenKey | undefined {
    const key = this.keys.find((k) => k.kid === kid);
    return key && this.isLive(key, Date.now()) ? key : undefined;
  }

  /** The JWK set of the live asymmetric keys (`{"keys":[]}` with HS256), and its ETag. */
  jwks(): { body: string; etag: string } {
    const now = Date.now();
    const live = this.keys.filter((k) => k.publicJwk && this.isLive(k, now));
    const kids = live.map((k) => k.kid).join(' ');
    if (this.published?.kids !== kids) {
      const body = JSON.stringify({ keys: live.map((k) => k.publicJwk) });
      this.published = { kids, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    }
    return this.published;
  }

  private isLive(key: TokenKey, now: number): boolean {
    return !key.demotedAt || verifiesUntil(key.demotedAt, this.accessTtlMs).getTime() > now;
  }
}

export interface SigningKeySettings {
  algorithm: JwtAlgorithm;
  /** Key files (JWK sets or PEM), in order; the first key of the first signs. */
  files: readonly string[];
  /** HS256: the secret; it also names the key. */
  secret: string;
  /** With no file named (outside production only), asymmetric keys are generated into it once. */
  dataDir: string;
  accessTtlSeconds: number;
}

/** Where generated keys of `alg` are kept, and where `npm run keys` edits them when no file is named. */
export function generatedKeyFile(dataDir: string, alg: AsymmetricAlgorithm): string {
  return join(dataDir, `jwt-keys-${alg.toLowerCase()}.json`);
}

/** How often the key files are checked for changes (a stat each). */
const RELOAD_CHECK_MS = 2_000;

/**
 * The signing keys, read at start and again whenever a key file changes (so that `npm run keys`
 * takes effect on a running instance within seconds). A file that cannot be used on reload is
 * logged and the keys in use stay.
 */
export class SigningKeys {
  private ring: KeyRing;
  private watched: string[] = [];

  private constructor(
    ring: KeyRing,
    private readonly settings: SigningKeySettings,
    private readonly files: readonly string[],
  ) {
    this.ring = ring;
  }

  static async load(settings: SigningKeySettings): Promise<SigningKeys> {
    const files = settings.algorithm === 'HS256' ? [] : await keyFiles(settings);
    return new SigningKeys(await buildRing(settings, files), settings, files);
  }

  current(): KeyRing {
    return this.ring;
  }

  /** Starts reloading the keys when a file changes; returns a function that stops it. */
  watch(logger: Logger): () => void {
    for (const file of this.files) {
      watchFile(file, { interval: RELOAD_CHECK_MS, persistent: false }, (now, before) => {
        if (now.mtimeMs === before.mtimeMs && now.ino === before.ino) return;
        this.reload().then(
          (ring) => logger.info({ signing: ring.signing.kid, published: JSON.parse(ring.jwks().body).keys.map((k: PublicJwk) => k.kid) }, 'signing keys reloaded'),
          (error: unknown) => logger.error({ err: error }, 'the changed key file cannot be used; the keys in use stay'),
        );
      });
      this.watched.push(file);
    }
    return () => {
      for (const file of this.watched) unwatchFile(file);
      this.watched = [];
    };
  }

  private async reload(): Promise<KeyRing> {
    const ring = await buildRing(this.settings, this.files);
    this.ring = ring;
    return ring;
  }
}

async function keyFiles(settings: SigningKeySettings): Promise<string[]> {
  if (settings.files.length > 0) return [...settings.files];
  const alg = settings.algorithm as AsymmetricAlgorithm;
  const file = generatedKeyFile(settings.dataDir, alg);
  if (!existsSync(file)) writeJwkSet(file, [await generateKey(alg)]);
  return [file];
}

async function buildRing(settings: SigningKeySettings, files: readonly string[]): Promise<KeyRing> {
  const ttlMs = settings.accessTtlSeconds * 1000;
  if (settings.algorithm === 'HS256') {
    const secret = createSecretKey(Buffer.from(settings.secret, 'utf8'));
    // Derived, so that the kid names the key without telling anything about it.
    const kid = Buffer.from(hkdfSync('sha256', settings.secret, 'meeting-accounts', 'jwt-kid', 12)).toString('base64url');
    const key: TokenKey = { kid, alg: 'HS256', signWith: secret, verifyWith: secret };
    return new KeyRing([key], ttlMs, key);
  }
  const keys = (await Promise.all(files.map(readKeyFile))).flat();
  const kids = keys.map((k) => k.kid);
  const repeated = kids.find((kid, i) => kids.indexOf(kid) !== i);
  if (repeated) throw new Error(`kid ${repeated} appears in more than one of ${files.join(', ')}`);
  const signing = keys[0]!;
  if (signing.alg !== settings.algorithm) {
    throw new Error(`${files[0]}: its first key, which signs, is ${signing.alg}, but JWT_ALGORITHM is ${settings.algorithm}`);
  }
  if (signing.demotedAt) throw new Error(`${files[0]}: its first key ${signing.kid} signs, but is marked demoted`);
  return new KeyRing(
    keys.map((k) => ({ kid: k.kid, alg: k.alg, signWith: k.privateKey, verifyWith: k.publicKey, publicJwk: k.publicJwk, demotedAt: k.demotedAt })),
    ttlMs,
  );
}
