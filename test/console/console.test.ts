// The operator console end to end (API.md 9.3), as operators use it in Chromium, against the real
// service started here with the console's trusted documents only
// (GRAPHQL_TRUSTED_DOCUMENTS=dist/console/persisted-documents.json: every request of the console is a
// document of its manifest, sent by hash). Every page passes axe-core with no serious or critical
// violation, and no page asks anything of another origin. Screenshots of each page are taken on the
// way (UPDATE_SCREENSHOTS=1 writes them to src/console/screenshots/, which the README shows).
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { GOOD_PASSWORD, registerUser, signInWithCode, type Session } from '../helpers/factories.js';
import { newPhone, useTestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { PASSKEYS } from '../passkeys/support.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import { CONSOLE_MANIFEST, expectAccessible, inBrowser, launchChromium, leave, screenshot, visit } from './support.js';

/** A loopback port free now, so that the service can be told its own origin (for passkeys) before it starts. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

let port = 0;
let receiver: Receiver;
let browser: Browser | undefined;
beforeAll(async () => {
  port = await freePort();
  receiver = await startReceiver();
  // The receiver refuses user.blocked: that delivery ends DEAD, for the webhooks page to retry.
  receiver.answer = (request) => (request.event?.type === 'user.blocked' ? 503 : 204);
  browser = await launchChromium();
}, 30_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

const t = useTestServer(() => ({
  PORT: String(port),
  WEBAUTHN_ORIGINS: `http://localhost:${port}`,
  GRAPHQL_TRUSTED_DOCUMENTS: CONSOLE_MANIFEST,
  // The shortest the service allows: the console refreshes 15 s before expiry (fast-forwarded below).
  ACCESS_TOKEN_TTL_SECONDS: '60',
  SEND_CODE_INTERVAL_SECONDS: '0',
  ...webhookEnv([receiver.url]),
}));
const origin = () => `http://localhost:${port}`;

/** A Chinese mobile number in national form, spaced as people write it: 138 1234 5678. */
const national = (phone: string) => phone.replace(/^\+86(\d{3})(\d{4})(\d{4})$/, '$1 $2 $3');
const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });
/** What has the keyboard focus: `tag#id text`. */
const focused = (page: Page) =>
  page.evaluate(() => {
    // In the page: the DOM's types are not part of this project's compilation.
    const element = (globalThis as any).document.activeElement;
    return element ? `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} ${(element.textContent ?? '').trim().slice(0, 40)}` : '';
  });
/** The status GET /api/v1/users/me answers `token` with. */
const meWith = async (token: string) => (await t.http.get('/api/v1/users/me', { token })).status;

async function makeOperator(session: Session, role: 'SUPPORT' | 'ADMIN', nickname: string): Promise<void> {
  await t.sql('update users set role = $2, nickname = $3 where id = $1', [session.userId, role, nickname]);
}

async function signInWithSmsCode(page: Page, phone: string): Promise<void> {
  await field(page, 'Phone number').fill(phone);
  await button(page, 'Send code').click();
  await page.getByText(`A code was sent to ${phone}`).waitFor();
  await field(page, 'Code from the SMS').fill(await t.codeFor(phone));
  await button(page, 'Sign in').click();
}

/** By the keyboard alone: the password's radio button chosen with the arrow keys, Enter to sign in. */
async function signInWithPassword(page: Page, phone: string): Promise<void> {
  await field(page, 'Phone number').fill(phone);
  await page.keyboard.press('Tab');
  await page.keyboard.press('ArrowDown');
  expect(await page.getByRole('radio', { name: "the account's password" }).isChecked()).toBe(true);
  await page.keyboard.press('Tab');
  await page.keyboard.type(GOOD_PASSWORD);
  expect(await focused(page)).toMatch(/^input#password/);
  await page.keyboard.press('Enter');
}

/** From the accounts page: searches `query` (Enter in the box), waits for its answer, opens the account of `phone`. */
async function openAccount(page: Page, query: string, phone: string): Promise<void> {
  await field(page, 'Phone, nickname or id').fill(query);
  await field(page, 'Phone, nickname or id').press('Enter');
  await page.getByText(`Accounts matching “${query}”, newest first`).waitFor();
  expect(await page.locator('tbody tr').count()).toBe(1);
  await page.getByRole('link', { name: phone }).click();
  await page.getByRole('heading', { name: `Account ${phone}` }).waitFor();
  await page.getByRole('table', { name: 'Security events, newest first' }).waitFor();
}

describe('the operator console in Chromium', () => {
  inBrowser(
    'an ADMIN signs in with an SMS code and TOTP, finds an account by its national number, blocks it with a reason (its token is refused at once), finds the block in the audit log, unblocks it, retries a webhook delivery, changes its role and deletes it',
    async () => {
      // TOTP on, confirmed with the code of the step before this one (the sign-in below then uses a
      // later step's): both REST calls of the enrolment within this step, whatever the machine's load.
      const signedIn = await signInWithCode(t);
      const admin = await enrolledUser(t, await steadyStep(5_000), signedIn);
      await makeOperator(admin, 'ADMIN', 'Ada Admin');
      for (const nickname of ['Li Na', 'Chen Jie']) await registerUser(t, newPhone(), GOOD_PASSWORD, nickname);
      const target = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Wang Wei');
      const seen = await visit(browser!);
      const { page } = seen;

      await page.goto(`${origin()}/console`);
      await page.getByRole('heading', { name: 'Operator console' }).waitFor();
      await expectAccessible(page, 'sign-in');
      await screenshot(page, 'sign-in');
      await signInWithSmsCode(page, admin.phone);
      await page.getByRole('heading', { name: 'Second factor' }).waitFor();
      await expectAccessible(page, 'second factor');
      await screenshot(page, 'second-factor');
      await field(page, 'Code from the authenticator app, or a recovery code').fill(codeAt(admin.secret, Math.floor(Date.now() / 30_000)));
      await button(page, 'Verify').click();

      // Every account, newest first; then the one of a national number.
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      await page.getByRole('link', { name: target.phone }).waitFor();
      await expectAccessible(page, 'accounts');
      await screenshot(page, 'accounts');
      await openAccount(page, national(target.phone), target.phone);
      expect(new URL(page.url()).pathname).toBe(`/console/users/${target.userId}`);
      await page.getByRole('heading', { name: 'Active sessions (1)' }).waitFor();
      await page.getByText(/entries of the (whole )?log/).waitFor();
      await expectAccessible(page, 'account');
      await screenshot(page, 'account');

      // Block: the focus moves into the dialog; no reason, no request; a refusal of the API (the
      // operator demoted meanwhile) keeps the dialog and the reason typed; then it blocks.
      await button(page, 'Block…').click();
      const dialog = page.getByRole('dialog', { name: `Block ${target.phone}` });
      await dialog.waitFor();
      expect(await focused(page)).toMatch(/^textarea#block-reason/);
      await button(page, 'Block account').click();
      await dialog.getByText('Give a reason').waitFor();
      expect(seen.operations).not.toContain('ConsoleBlock');
      const reason = 'Meeting spam from this number';
      await field(page, 'Reason (required, up to 500 characters)').fill(reason);
      await t.sql("update users set role = 'SUPPORT' where id = $1", [admin.userId]);
      await button(page, 'Block account').click();
      await dialog.getByText('FORBIDDEN').waitFor();
      expect(await field(page, 'Reason (required, up to 500 characters)').inputValue()).toBe(reason);
      await t.sql("update users set role = 'ADMIN' where id = $1", [admin.userId]);
      await expectAccessible(page, 'block dialog');
      await screenshot(page, 'block-dialog');
      await button(page, 'Block account').click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByText(`: “${reason}”`).waitFor();
      expect(await meWith(target.accessToken)).toBe(401);
      // The Block button is gone: the focus is on what replaced it.
      expect(await focused(page)).toMatch(/^button Unblock…/);

      // The audit log has the block, with its reason.
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      const blocked = page.getByRole('row').filter({ hasText: 'User blocked' });
      expect(await blocked.textContent()).toContain(reason);
      await expectAccessible(page, 'audit log');
      await screenshot(page, 'audit-log');

      // Back to the account (the browser's Back), whose own audit entries have it too; unblock.
      await page.goBack();
      await page.getByRole('heading', { name: `Account ${target.phone}` }).waitFor();
      await page.getByRole('table', { name: 'Audit entries about this account, newest first' }).getByText(reason).waitFor();
      await button(page, 'Unblock…').click();
      await button(page, 'Unblock account').click();
      await button(page, 'Block…').waitFor();
      expect((await t.http.post('/api/v1/auth/login-password', { phone: target.phone, password: GOOD_PASSWORD })).status).toBe(200);

      // Webhook deliveries: user.blocked was refused until DEAD; one more try from here.
      expect(await waitFor(async () => (await t.sql("select 1 from webhook_deliveries where event_type = 'user.blocked' and status = 'DEAD'")).length === 1, 10_000)).toBe(true);
      await page.getByRole('link', { name: 'Webhook deliveries' }).click();
      await page.getByRole('row').filter({ hasText: 'user.unblocked' }).waitFor();
      await expectAccessible(page, 'webhook deliveries');
      await screenshot(page, 'webhooks');
      await field(page, 'Status').selectOption('DEAD');
      await button(page, 'Show').click();
      await page.getByRole('table', { name: 'DEAD deliveries, newest first' }).waitFor();
      const dead = page.getByRole('row').filter({ hasText: 'user.blocked' });
      await dead.getByRole('button', { name: /^Retry/ }).click();
      await button(page, 'Send it again now').click();
      await dead.getByText('PENDING').waitFor();
      expect(await t.sql("select 1 from audit_log where action = 'WEBHOOK_RETRIED'")).toHaveLength(1);

      // The account again, by its nickname: a new role, then its deletion, confirmed by typing its phone number.
      await page.getByRole('link', { name: 'Accounts' }).click();
      await openAccount(page, 'Wang Wei', target.phone);
      await button(page, 'Change role…').click();
      await field(page, 'New role').selectOption('SUPPORT');
      await button(page, 'Change role').click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      await page.getByRole('region', { name: 'Profile' }).locator('dd', { hasText: /^SUPPORT$/ }).waitFor();
      await button(page, 'Delete account…').click();
      await field(page, `Type the phone number, ${target.phone}, to confirm`).fill(target.phone.slice(0, -1));
      await button(page, 'Delete for good').click();
      await page.getByRole('dialog').getByText(`Type ${target.phone} exactly to confirm.`).waitFor();
      expect(seen.operations).not.toContain('ConsoleDelete');
      await field(page, `Type the phone number, ${target.phone}, to confirm`).fill(target.phone);
      await button(page, 'Delete for good').click();
      await page.getByText(`The account ${target.phone} was deleted.`).waitFor();
      expect(new URL(page.url()).pathname).toBe('/console');
      expect(await t.sql('select 1 from users where id = $1', [target.userId])).toHaveLength(0);
      // Every request named a document of the console's manifest by its hash, and sent no text.
      expect(seen.operations.filter((name) => !name.startsWith('Console'))).toEqual([]);
      expect(seen.withText).toEqual([]);
      await leave(seen, origin());
    },
    60_000,
  );

  inBrowser(
    'a SUPPORT operator signs in with a passkey, sees no block, role or delete control nor the ADMIN pages, and revokes the sessions of a user',
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(support, 'SUPPORT', 'Sam Support');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Zhang Min');
      const second = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
      const seen = await visit(browser!, { authenticator: true });
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      // The operator's passkey, made by this browser's authenticator on the console's origin.
      const options = await t.http.post(`${PASSKEYS}/registration-options`, undefined, { token: support.accessToken });
      const credential = await page.evaluate(async (o) => {
        const { navigator, PublicKeyCredential } = globalThis as any;
        return (await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(o) })).toJSON();
      }, options.body);
      expect((await t.http.post(PASSKEYS, { response: credential }, { token: support.accessToken })).status).toBe(201);

      await button(page, 'Sign in with a passkey').click();
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      await page.getByText('Sam Support ·').waitFor();
      for (const admin of ['Audit log', 'Webhook deliveries']) expect(await page.getByRole('link', { name: admin }).count()).toBe(0);
      await openAccount(page, user.userId, user.phone);
      await page.getByRole('heading', { name: 'Active sessions (2)' }).waitFor();
      for (const control of [/^Block/, /^Unblock/, /^Change role/, /^Delete/]) expect(await page.getByRole('button', { name: control }).count()).toBe(0);
      expect(await page.getByRole('heading', { name: 'Audit entries about this account' }).count()).toBe(0);
      await expectAccessible(page, 'account, as SUPPORT');
      await screenshot(page, 'account-support');

      // By the keyboard: the dialog takes the focus (its Cancel button: it has no field), Escape
      // closes it and gives the focus back; opened again, Shift+Tab and Enter confirm.
      const revoke = button(page, 'Revoke all sessions…');
      await revoke.focus();
      await page.keyboard.press('Enter');
      await page.getByRole('dialog', { name: `Revoke every session of ${user.phone}` }).waitFor();
      expect(await focused(page)).toMatch(/^button Cancel/);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      expect(await focused(page)).toMatch(/^button Revoke all sessions…/);
      await page.keyboard.press('Enter');
      await page.keyboard.press('Shift+Tab');
      expect(await focused(page)).toMatch(/^button Revoke all sessions$/);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Active sessions (0)' }).waitFor();
      expect([await meWith(user.accessToken), await meWith(second.body.accessToken)]).toEqual([401, 401]);
      // An ADMIN page by its address: not for SUPPORT.
      await page.evaluate(() => {
        const w = globalThis as any;
        w.history.pushState(null, '', '/console/audit');
        w.dispatchEvent(new w.PopStateEvent('popstate'));
      });
      await page.getByText('This page is for ADMIN operators.').waitFor();
      await leave(seen, origin());
    },
    30_000,
  );

  inBrowser('a USER is told the console is for operators, and signed out again', async () => {
    const user = await registerUser(t, newPhone(), GOOD_PASSWORD);
    const seen = await visit(browser!);
    const { page } = seen;
    await page.goto(`${origin()}/console`);
    const signedIn = page.waitForResponse((res) => res.request().postData()?.includes('"ConsoleLoginWithPassword"') === true);
    await signInWithPassword(page, user.phone);
    const token = ((await (await signedIn).json()) as { data: { loginWithPassword: { accessToken: string } } }).data.loginWithPassword.accessToken;
    await page.getByText(`${user.phone} has no operator role`).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('It has been signed out again.');
    expect(await meWith(token)).toBe(401);
    expect(await page.getByRole('heading', { name: 'Accounts' }).count()).toBe(0);
    await leave(seen, origin());
  });

  inBrowser(
    'refreshes the access token before it expires; a session ended meanwhile returns to the sign-in form with a message, then to the same page',
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(support, 'SUPPORT', 'Sam Support');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Liu Yang');
      const seen = await visit(browser!);
      const { page } = seen;
      await page.clock.install();
      await page.goto(`${origin()}/console`);
      await signInWithPassword(page, support.phone);
      await openAccount(page, user.phone, user.phone);

      // 46 s on (of the token's 60): the console has refreshed, and the next request is served.
      const refreshed = page.waitForResponse((res) => res.request().postData()?.includes('"ConsoleRefresh"') === true);
      await page.clock.fastForward('00:46');
      expect(((await (await refreshed).json()) as { errors?: unknown }).errors).toBeUndefined();
      await page.getByRole('link', { name: 'Back to the accounts' }).click();
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      await page.goBack();
      await page.getByRole('heading', { name: `Account ${user.phone}` }).waitFor();

      // Signed out everywhere from elsewhere: the next action finds the session over.
      const elsewhere = await t.http.post('/api/v1/auth/login-password', { phone: support.phone, password: GOOD_PASSWORD });
      expect((await t.http.post('/api/v1/auth/logout', { allSessions: true }, { token: elsewhere.body.accessToken })).status).toBe(204);
      await button(page, 'Revoke all sessions…').click();
      await button(page, 'Revoke all sessions').click();
      await page.getByText('Your session has ended (UNAUTHENTICATED): sign in again to go on where you were.').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/users/${user.userId}`);
      await expectAccessible(page, 'sign-in after the session ended');
      await signInWithPassword(page, support.phone);
      await page.getByRole('heading', { name: `Account ${user.phone}` }).waitFor();
      await leave(seen, origin());
    },
    30_000,
  );

  inBrowser("holds the page to its own origin: the CSP header is there, and refuses an injected inline script and a request elsewhere", async () => {
    const seen = await visit(browser!);
    const { page } = seen;
    const response = await page.goto(`${origin()}/console`);
    const csp = response!.headers()['content-security-policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-(inline|eval)/);
    await page.evaluate(() => {
      const w = globalThis as any;
      w.violations = [];
      w.document.addEventListener('securitypolicyviolation', (event: any) => w.violations.push(event.effectiveDirective));
    });
    await expect(page.addScriptTag({ content: 'globalThis.injected = true;' })).rejects.toThrow(/Content Security Policy/);
    const elsewhere = await page.evaluate(() => fetch('http://127.0.0.1:9/').then(() => 'fetched', (error: Error) => error.name));
    expect({ injected: await page.evaluate(() => (globalThis as any).injected), elsewhere }).toEqual({ injected: undefined, elsewhere: 'TypeError' });
    expect(await page.evaluate(() => (globalThis as any).violations)).toEqual(['script-src-elem', 'connect-src']);
    await leave(seen, origin());
  });
});
