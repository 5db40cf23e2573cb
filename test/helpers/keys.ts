// The key files of asymmetric signing in tests: made and rotated with the service's own command,
// `npm run keys` (dist/src/keys.js, built by npm test's pretest), as an operator would.
import { afterAll, beforeAll } from '@jest/globals';
import { spawn } from 'node:child_process';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useTestServer, type TestServer, type TestServerOptions } from './server.js';

const KEYS_COMMAND = fileURLToPath(new URL('../../dist/src/keys.js', import.meta.url));

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run keys -- ...args` with `env` (JWT_ALGORITHM, JWT_PRIVATE_KEYS_FILE, ...). */
export function keysCommand(args: string[], env: Record<string, string>): Promise<CommandResult> {
  const child = spawn(process.execPath, [KEYS_COMMAND, ...args], {
    env: { PATH: process.env.PATH, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Runs the command and fails the test with its output unless it succeeds. */
export async function keysOk(args: string[], env: Record<string, string>): Promise<string> {
  const result = await keysCommand(args, env);
  if (result.code !== 0) throw new Error(`npm run keys -- ${args.join(' ')} exited ${result.code}: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

export interface FileKeyEntry {
  kid: string;
  alg: 'ES256' | 'EdDSA';
  demotedAt?: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

/** The keys of a JWK set file, in order, with their private keys for forging tokens. */
export function keysIn(file: string): FileKeyEntry[] {
  const set = JSON.parse(readFileSync(file, 'utf8')) as { keys: (Record<string, unknown> & { kid: string; alg: 'ES256' | 'EdDSA'; demotedAt?: string })[] };
  return set.keys.map((jwk) => ({
    kid: jwk.kid,
    alg: jwk.alg,
    demotedAt: jwk.demotedAt,
    jwk,
    privateKey: createPrivateKey({ key: jwk as never, format: 'jwk' }),
  }));
}

/**
 * The test server of the enclosing describe block, signing with `alg` and a key file of its own that
 * `npm run keys -- add` made first; `env` is what the server and the command share.
 */
export function useKeyFileServer(
  alg: 'ES256' | 'EdDSA',
  extra: Record<string, string> = {},
  options: TestServerOptions = {},
): { t: TestServer; env: Record<string, string>; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ma-keys-'));
  const file = join(dir, 'keys.json');
  const env = { JWT_ALGORITHM: alg, JWT_PRIVATE_KEYS_FILE: file, ...extra };
  beforeAll(() => keysOk(['add'], env));
  const t = useTestServer(() => env, options);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return { t, env, file };
}
