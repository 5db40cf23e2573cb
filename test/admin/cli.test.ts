// `npm run admin` (src/admin.ts) as an operator runs it: `node dist/src/admin.js`, a process of its
// own, on the database of an in-process test server. A role it sets is seen on the account's very next
// request with the access token it already holds, and is recorded as ROLE_CHANGED in the account's
// security events; each refusal exits non-zero, says why, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerUser, signInWithCode, type Session } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import type { ScriptRun } from '../operability/support.js';
import { runAdminTool } from './support.js';
import { signInByOutbox, startService, type ServiceProcess } from '../operability/support.js';
import { TEST_JWT_SECRET } from '../helpers/server.js';

const USAGE = 'usage: npm run admin -- <command>';
const NOT_VALID = 'is not a valid mobile number: give it in E.164 (+8613800138000) or in the national form of CN';

let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'meeting-accounts-admin-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs the tool with `args` and exactly the environment an operator's shell would give it. */
const admin = (args: string[], env: Record<string, string> = {}) => runAdminTool(args, dataDir, env);

function expectSuccess(run: ScriptRun, stdout: string): void {
  expect({ code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({ code: 0, stdout: `${stdout}\n`, stderr: '' });
}

describe('npm run admin', () => {
  const t = useTestServer();

  const gqlRole = async (token: string) => {
    const res = await t.http.post('/graphql', { query: '{ me { role } }' }, { token });
    expect(res.body.errors).toBeUndefined();
    return res.body.data.me.role as string;
  };
  const restRole = async (token: string) => {
    const res = await t.http.get('/api/v1/users/me', { token });
    expect(res.status).toBe(200);
    return res.body.role as string;
  };
  const roleChanges = async (token: string) => {
    const res = await t.http.get('/api/v1/users/me/security-events?limit=100', { token });
    expect(res.status).toBe(200);
    return (res.body.items as { type: string }[]).filter((e) => e.type === 'ROLE_CHANGED');
  };

  const forms = [
    { form: 'national form', typed: (phone: string) => phone.slice('+86'.length) },
    { form: 'E.164', typed: (phone: string) => phone },
  ];
  for (const { form, typed } of forms) {
    it(`grants ADMIN by a phone in ${form}, seen by the same access token on its next request; revoke makes it USER`, async () => {
      const user = await signInWithCode(t);
      expect(await restRole(user.accessToken)).toBe('USER');

      expectSuccess(await admin(['grant', typed(user.phone), 'ADMIN']), `${user.phone}: USER -> ADMIN; takes effect on the account's next request`);
      expect(await restRole(user.accessToken)).toBe('ADMIN');
      expect(await gqlRole(user.accessToken)).toBe('ADMIN');

      expectSuccess(await admin(['revoke', typed(user.phone)]), `${user.phone}: ADMIN -> USER; takes effect on the account's next request`);
      expect(await restRole(user.accessToken)).toBe('USER');
      expect(await gqlRole(user.accessToken)).toBe('USER');
    }, 60_000);
  }

  it('records each change as ROLE_CHANGED in the account\'s security events, and says when nothing changed', async () => {
    const user = await signInWithCode(t);
    expect(await roleChanges(user.accessToken)).toEqual([]);

    expectSuccess(await admin(['grant', user.phone, 'support']), `${user.phone}: USER -> SUPPORT; takes effect on the account's next request`);
    expect(await roleChanges(user.accessToken)).toHaveLength(1);
    expectSuccess(await admin(['grant', user.phone, 'SUPPORT']), `${user.phone} is SUPPORT already; nothing changed`);
    expect(await restRole(user.accessToken)).toBe('SUPPORT');
    expect(await roleChanges(user.accessToken)).toHaveLength(1);

    expectSuccess(await admin(['revoke', user.phone]), `${user.phone}: SUPPORT -> USER; takes effect on the account's next request`);
    expectSuccess(await admin(['revoke', user.phone]), `${user.phone} is USER already; nothing changed`);
    const events = await roleChanges(user.accessToken);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: 'ROLE_CHANGED', phoneMasked: `+${'*'.repeat(user.phone.length - 5)}${user.phone.slice(-4)}` });
  }, 60_000);

  it('lists exactly the operators, oldest account first, with no secret', async () => {
    expectSuccess(await admin(['list']), 'No operators: every account is USER. Give one a role with npm run admin -- grant <phone> SUPPORT|ADMIN');
    const first: Session = await registerUser(t, newPhone(), undefined, 'First Admin');
    const user = await signInWithCode(t);
    const third = await signInWithCode(t);
    // Oldest first by the account's creation, neither the order of sign-up nor that of the grants.
    await t.sql("update users set created_at = created_at - interval '1 day' where id = $1", [third.userId]);
    expect((await admin(['grant', first.phone, 'ADMIN'])).code).toBe(0);
    expect((await admin(['grant', third.phone, 'SUPPORT'])).code).toBe(0);

    const run = await admin(['list']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const lines = run.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));
    const since = async (account: Session) => `member since ${(await t.http.get('/api/v1/users/me', { token: account.accessToken })).body.createdAt}`;
    expect(lines).toEqual([
      ['SUPPORT', third.phone, JSON.stringify(third.body.user.nickname), third.userId, await since(third)],
      ['ADMIN', first.phone, '"First Admin"', first.userId, await since(first)],
    ]);
    expect(run.stdout).not.toContain(user.phone);
    expect(run.stdout).not.toMatch(/\$2[aby]\$/);
    for (const secret of [first.accessToken, first.refreshToken, third.accessToken, third.refreshToken]) expect(run.stdout).not.toContain(secret);
  }, 60_000);

  it('refuses a missing or unknown command, phone or role, and a phone without an account, changing nothing', async () => {
    const user = await signInWithCode(t);
    const operator = await signInWithCode(t);
    expect((await admin(['grant', operator.phone, 'SUPPORT'])).code).toBe(0);
    const state = () => t.sql('select id, role from users order by id');
    const events = async () => (await t.sql<{ n: string }>('select count(*)::text as n from security_events'))[0]!.n;
    const before = { users: await state(), events: await events() };
    const stranger = newPhone();

    const refusals: { args: string[]; code: number; says: string }[] = [
      { args: [], code: 2, says: USAGE },
      { args: ['promote', user.phone, 'ADMIN'], code: 2, says: USAGE },
      { args: ['grant'], code: 1, says: 'grant needs a phone number and a role: npm run admin -- grant <phone> SUPPORT|ADMIN' },
      { args: ['grant', user.phone], code: 1, says: 'grant needs a role after the phone number: SUPPORT or ADMIN' },
      { args: ['revoke'], code: 1, says: 'revoke needs a phone number: npm run admin -- revoke <phone>' },
      { args: ['grant', '12345', 'ADMIN'], code: 1, says: `12345 ${NOT_VALID}` },
      { args: ['revoke', '+861380013800x'], code: 1, says: `+861380013800x ${NOT_VALID}` },
      { args: ['grant', user.phone, 'ROOT'], code: 1, says: 'unknown role ROOT: the roles to grant are SUPPORT and ADMIN' },
      { args: ['grant', user.phone, 'USER'], code: 1, says: 'USER is not granted: take a role away with npm run admin -- revoke <phone>' },
      { args: ['grant', user.phone, 'ADMIN', 'now'], code: 1, says: 'grant takes a phone number and a role (got also now)' },
      { args: ['grant', stranger, 'ADMIN'], code: 1, says: `no account has the phone number ${stranger}; nothing changed` },
      { args: ['revoke', stranger.slice(3)], code: 1, says: `no account has the phone number ${stranger.slice(3)}; nothing changed` },
    ];
    for (const { args, code, says } of refusals) {
      const run = await admin(args);
      expect({ args, code: run.code, stdout: run.stdout, stderr: run.stderr.split('\n')[0] }).toEqual({ args, code, stdout: '', stderr: says });
    }
    expect({ users: await state(), events: await events() }).toEqual(before);
    expect(await restRole(operator.accessToken)).toBe('SUPPORT');
  }, 120_000);

  it('tells to migrate a database without the role column, and migrates nothing itself when MIGRATE_ON_START is off', async () => {
    const user = await signInWithCode(t);
    await t.sql('alter table users rename column role to role_before');
    try {
      for (const args of [['grant', user.phone, 'ADMIN'], ['list']]) {
        const run = await admin(args, { MIGRATE_ON_START: 'false' });
        expect(run).toEqual({ code: 1, stdout: '', stderr: 'the database has no role column yet: run npm run migrate\n' });
      }
      expect(await t.sql('select role_before from users where id = $1', [user.userId])).toEqual([{ role_before: 'USER' }]);
    } finally {
      await t.sql('alter table users rename column role_before to role');
    }
  }, 60_000);
});

describe('npm run admin on the embedded database of a running service', () => {
  // The README's first path: `npm start` on the default embedded database, then the first admin is
  // granted from a second shell while the service runs (it holds the database; the tool borrows it
  // through the service's own socket), and the service sees the role on the account's next request.
  let dir: string;
  let service: ServiceProcess | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'meeting-accounts-admin-embedded-'));
  });
  afterAll(async () => {
    await service?.kill();
    await rm(dir, { recursive: true, force: true });
  });
  const embedded = { DATABASE_URL: undefined, DATABASE_PREPARED_STATEMENTS: undefined };

  it('grants a role while the service runs, which the service sees at once; then opens the database itself once the service is gone', async () => {
    const outbox = join(dir, 'sms.jsonl');
    service = await startService(
      { NODE_ENV: 'test', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, JWT_SECRET: TEST_JWT_SECRET, SMS_PROVIDER: 'file', SMS_OUTBOX_FILE: outbox, LOG_LEVEL: 'warn' },
      60_000,
    );
    const phone = '+8613812345678';
    const { accessToken } = await signInByOutbox(service.url, outbox, phone);
    const granted = await runAdminTool(['grant', phone, 'SUPPORT'], dir, embedded);
    expect(granted).toEqual({ code: 0, stdout: `${phone}: USER -> SUPPORT; takes effect on the account's next request\n`, stderr: '' });
    const me = await fetch(`${service.url}/api/v1/users/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    expect(((await me.json()) as { role: string }).role).toBe('SUPPORT');

    // Stopped as `npm start` is (Ctrl-C): the database and its address are let go, and the tool opens it itself.
    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);
    service = undefined;
    const listed = await runAdminTool(['list'], dir, embedded);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^SUPPORT\\s+\\${phone}\\s`));
  }, 120_000);
});
