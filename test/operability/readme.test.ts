// The runnable examples of README.md and docs/*.md (fenced ```sh runnable), run as a person pastes them
// into bash, against the real service printing its codes on standard output (console SMS provider), as
// `npm start` does: the README's sign-in walkthroughs (REST and GraphQL), the operators' walkthrough
// that goes on in the REST one's shell, and every other runnable block on its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminToolEnv } from '../admin/support.js';
import { runnableBlocks } from '../docs/markdown.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { freshRateLimits, ROOT, startService, type ServiceProcess } from './support.js';

const runnable = runnableBlocks();
const blocks = runnable.filter((b) => b.file === 'README.md' && b.body.includes('ACCESS_TOKEN=')).map((b) => b.body);
const operatorBlock = runnable.find((b) => b.body.includes('admin -- grant') && b.body.includes('audit-log'))!;
/** The other runnable blocks: each runs in a shell of its own, with nothing but the started service. */
const others = runnable.filter((b) => !blocks.includes(b.body) && b !== operatorBlock);

let dir: string;
let service: ServiceProcess;
/** The token each sign-in block ended with: the operator walkthrough goes on in the REST block's shell. */
const tokens = new Map<string, string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-readme-'));
  service = await startService({
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: process.env.TEST_WORKER_DATABASE_URL!,
    DATA_DIR: dir,
    JWT_SECRET: TEST_JWT_SECRET,
    SMS_PROVIDER: 'console',
    LOG_LEVEL: 'warn',
  });
  // After the start, which migrates a fresh database.
  await freshRateLimits();
});
afterAll(async () => {
  await service?.kill();
  await rm(dir, { recursive: true, force: true });
});

/** Runs a block in bash; answers its `read -r CODE`, if any, with the code the service printed for its `PHONE`. */
async function runBlock(block: string): Promise<string> {
  const needsCode = /\bread -r CODE\b/.test(block);
  const phone = /^PHONE=(\d+)$/m.exec(block)?.[1];
  if (needsCode && !phone) throw new Error(`the block reads a code but sets no PHONE:\n${block}`);
  const { host } = new URL(service.url);
  // The token is printed last, for the operator walkthrough, which the README runs in the REST block's shell.
  const script = `${block.replaceAll('localhost:4000', host)}\necho; echo "TOKEN=\${ACCESS_TOKEN:-}"`;
  const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  bash.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  bash.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => bash.once('exit', resolve));
  if (needsCode) {
    const printed = new RegExp(`\\[sms\\] \\+86${phone} login code (\\d{6})`);
    expect(await waitFor(() => printed.test(service.stdout()), 10_000)).toBe(true);
    bash.stdin.end(`${printed.exec(service.stdout())![1]}\n`);
  } else {
    bash.stdin.end();
  }
  const code = await exited;
  if (code !== 0) throw new Error(`the block exited ${code}:\n${block}\n${out}\n${err}`);
  tokens.set(block, /^TOKEN=(.*)$/m.exec(out)![1]!);
  return out.slice(0, out.lastIndexOf('TOKEN='));
}

describe('README walkthrough', () => {
  it('has a REST and a GraphQL sign-in block, the operators\' walkthrough and other runnable examples', () => {
    expect(operatorBlock).toBeDefined();
    expect(others.length).toBeGreaterThan(0);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('/api/v1/auth/login');
    expect(blocks[1]).toContain('/graphql');
  });

  it('signs in over REST with curl and jq, and reads the user with the captured token', async () => {
    const out = await runBlock(blocks[0]!);
    const me = JSON.parse(out.slice(out.lastIndexOf('{"id"')));
    expect(me).toMatchObject({ phone: `+86${/^PHONE=(\d+)$/m.exec(blocks[0]!)![1]}` });
  }, 30_000);

  it('signs in over GraphQL with curl and jq, and reads the user with the captured token', async () => {
    const out = await runBlock(blocks[1]!);
    const me = JSON.parse(out.slice(out.lastIndexOf('{"data"')));
    expect(me).toEqual({ data: { me: { id: expect.any(String), phone: `+86${/^PHONE=(\d+)$/m.exec(blocks[1]!)![1]}`, nickname: expect.any(String) } } });
  }, 30_000);

  it('walks an operator through granting the first admin, finding the GraphQL user, blocking them and reading the audit log', async () => {
    const restToken = tokens.get(blocks[0]!);
    expect(restToken).toEqual(expect.any(String));
    const { host } = new URL(service.url);
    const bash = spawn('bash', ['-euo', 'pipefail', '-c', operatorBlock.body.replaceAll('localhost:4000', host)], {
      cwd: ROOT,
      env: {
        // What the README's reader has in the service's shell: its database, its secret.
        ...adminToolEnv(dir),
        ACCESS_TOKEN: restToken!,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    bash.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    bash.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve));
    if (code !== 0) throw new Error(`the operator block (${operatorBlock.file}) exited ${code}:\n${out}\n${err}`);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('+8613800138000: USER -> ADMIN; takes effect on the account\'s next request');
    const found = JSON.parse(lines[1]!);
    expect(found).toMatchObject({ phone: '+8613900139000', status: 'ACTIVE' });
    expect(JSON.parse(lines[2]!)).toEqual({ status: 'BLOCKED', blockedReason: 'meeting spam', activeSessions: 0 });
    // The newest five of the worker's database, which earlier test files wrote to as well: ours first.
    const audit = lines.slice(3).map((line) => JSON.parse(line));
    expect(audit.length).toBeGreaterThanOrEqual(3);
    // The search by the full number read the account, as opening it would; the one by leading digits did not.
    expect(audit.slice(0, 3).map((entry) => entry.action)).toEqual(['USER_BLOCKED', 'USER_VIEWED', 'ROLE_CHANGED']);
    expect(audit[0]).toMatchObject({ targetUserId: found.id, detail: { reason: 'meeting spam', sessionsEnded: 1, wasBlocked: false } });
    expect(audit[0].actorId).toEqual(expect.any(String));
    expect(audit[1]).toMatchObject({ actorId: audit[0].actorId, targetUserId: found.id, detail: { read: 'details', via: 'search' } });
    expect(audit[2]).toMatchObject({ actorId: null, detail: { from: 'USER', to: 'ADMIN', via: 'command line' } });
  }, 60_000);
});

describe('the runnable examples of the guides', () => {
  it.each(others.map((b) => [b.file, b.body.split('\n')[0], b.body] as const))('%s: %s', async (_file, _first, body) => {
    await runBlock(body);
  }, 30_000);
});
