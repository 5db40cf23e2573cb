// `npm run keys -- list|add|promote|retire`: rotates the access-token signing keys of the key file
// (JWT_PRIVATE_KEYS_FILE, or the one generated into DATA_DIR) without signing anyone out:
//   add      a new key is published (verifies, does not sign yet)
//   promote  it signs from now on; the old key keeps verifying the tokens it signed until they expire
//   retire   drops keys whose tokens have all expired
// Running instances reload the file within seconds. In the container: node dist/src/keys.js <command>.
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config/config.js';
import { generateKey, KeyFileError, readJwkSet, writeJwkSet, type AsymmetricAlgorithm, type StoredKey } from './shared/tokens/key-file.js';
import { generatedKeyFile, JWKS_MAX_AGE_SECONDS, verifiesUntil } from './shared/tokens/signing-keys.js';

const USAGE = `usage: npm run keys -- <command>
  list                 the keys of the key file and what each does
  add [--alg ES256|EdDSA]
                       publish a new key (it verifies; it signs once promoted)
  promote [kid]        make the newest published key (or kid) the signing key
  retire [kid] [--force]
                       drop the demoted keys whose tokens have all expired (or kid; --force drops
                       them even while their tokens live: the holders of those must refresh)`;

class Refusal extends Error {}

async function main(args: string[]): Promise<string> {
  const config = loadConfig();
  const [command, ...rest] = args;
  const files = config.jwt.privateKeysFiles;
  if (files.length > 1) throw new Refusal('JWT_PRIVATE_KEYS_FILE names several files; rotate one of them by naming it alone');
  const algFlag = option(rest, '--alg');
  const defaultAlg = config.jwt.algorithm === 'HS256' ? undefined : config.jwt.algorithm;
  const alg = (algFlag ?? defaultAlg) as AsymmetricAlgorithm | undefined;
  if (alg !== undefined && alg !== 'ES256' && alg !== 'EdDSA') throw new Refusal('--alg must be ES256 or EdDSA');
  const file = files[0] ?? (defaultAlg ? generatedKeyFile(config.dataDir, defaultAlg) : undefined);
  if (!file) throw new Refusal('JWT_ALGORITHM is HS256, which has no key file: set JWT_ALGORITHM=ES256 or EdDSA, or name JWT_PRIVATE_KEYS_FILE');
  const ttlMs = config.tokens.accessTtlSeconds * 1000;
  if (!existsSync(file) && command !== 'add') {
    throw new Refusal(`${file} does not exist yet: the service creates it on its first start, or run npm run keys -- add`);
  }
  const keys = existsSync(file) ? readJwkSet(file) : [];
  const liveUntil = (key: StoredKey) => verifiesUntil(new Date(key.demotedAt!), ttlMs);

  switch (command) {
    case 'list':
      return [`${file}:`, ...keys.map((key, i) => `  ${key.kid}  ${key.alg}  ${describeKey(key, i, liveUntil)}`)].join('\n');
    case 'add': {
      if (!alg) throw new Refusal('say which algorithm: --alg ES256 or --alg EdDSA');
      const key = await generateKey(alg);
      writeJwkSet(file, [...keys, key]);
      if (keys.length === 0) return `${file}: created with ${key.kid} (${alg}), which signs.`;
      return [
        `${file}: added ${key.kid} (${alg}); it is published and verifies, and does not sign yet.`,
        `Next: once every instance has reloaded the file (seconds) and verifiers' JWKS caches have expired (max-age ${JWKS_MAX_AGE_SECONDS} s),`,
        `run: npm run keys -- promote ${key.kid}`,
      ].join('\n');
    }
    case 'promote': {
      const kid = rest.find((a) => !a.startsWith('--'));
      const index = kid ? keys.findIndex((k) => k.kid === kid) : keys.findLastIndex((k, i) => i > 0 && !k.demotedAt);
      if (index < 0) throw new Refusal(kid ? `${file} has no key ${kid}` : `${file} has no published key waiting to sign: run npm run keys -- add first`);
      if (index === 0) throw new Refusal(`${keys[0]!.kid} already signs`);
      const promoted = keys[index]!;
      if (promoted.demotedAt) throw new Refusal(`${promoted.kid} was demoted; add a new key instead of reviving an old one`);
      if (config.jwt.algorithm !== 'HS256' && promoted.alg !== config.jwt.algorithm) {
        throw new Refusal(`${promoted.kid} is ${promoted.alg} but JWT_ALGORITHM is ${config.jwt.algorithm}: change both together`);
      }
      const previous: StoredKey = { ...keys[0]!, demotedAt: new Date().toISOString() };
      writeJwkSet(file, [{ ...promoted }, previous, ...keys.filter((_, i) => i !== 0 && i !== index)]);
      return [
        `${file}: ${promoted.kid} signs from now on.`,
        `${previous.kid} keeps verifying the tokens it signed until ${liveUntil(previous).toISOString()}; after that, run: npm run keys -- retire`,
      ].join('\n');
    }
    case 'retire': {
      const kid = rest.find((a) => !a.startsWith('--'));
      const force = rest.includes('--force');
      const now = Date.now();
      const expired = (k: StoredKey) => k.demotedAt !== undefined && liveUntil(k).getTime() <= now;
      const chosen = kid ? keys.filter((k) => k.kid === kid) : keys.filter((k) => (force ? k.demotedAt !== undefined : expired(k)));
      if (kid && chosen.length === 0) throw new Refusal(`${file} has no key ${kid}`);
      if (chosen.includes(keys[0]!)) throw new Refusal(`${keys[0]!.kid} signs; promote another key first`);
      const live = chosen.filter((k) => k.demotedAt !== undefined && !expired(k));
      if (live.length > 0 && !force) {
        throw new Refusal(`${live.map((k) => `${k.kid} verifies live tokens until ${liveUntil(k).toISOString()}`).join('; ')}: retire it then, or with --force now`);
      }
      if (chosen.length === 0) {
        const next = keys.filter((k) => k.demotedAt).map(liveUntil).sort((a, b) => a.getTime() - b.getTime())[0];
        return `${file}: nothing to retire${next ? `; the next demoted key's tokens expire at ${next.toISOString()}` : ''}.`;
      }
      writeJwkSet(file, keys.filter((k) => !chosen.includes(k)));
      return `${file}: retired ${chosen.map((k) => k.kid).join(', ')}.`;
    }
    default:
      throw new Refusal(USAGE);
  }
}

function describeKey(key: StoredKey, index: number, liveUntil: (key: StoredKey) => Date): string {
  if (index === 0) return 'signs';
  if (!key.demotedAt) return 'published, verifies; promote it to sign';
  const until = liveUntil(key);
  return until.getTime() > Date.now() ? `demoted; verifies its tokens until ${until.toISOString()}` : 'demoted; its tokens have expired: retire it';
}

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

main(process.argv.slice(2)).then(
  (output) => process.stdout.write(`${output}\n`),
  (error: unknown) => {
    const usage = error instanceof Refusal && error.message === USAGE;
    process.stderr.write(`${error instanceof Error && (error instanceof Refusal || error instanceof ConfigError || error instanceof KeyFileError) ? error.message : String(error)}\n`);
    process.exitCode = usage ? 2 : 1;
  },
);
