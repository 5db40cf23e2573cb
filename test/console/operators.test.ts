// The operator console end to end (API.md 9.3): what it offers whom. A SUPPORT operator (signed in
// with a passkey) has no ADMIN control; a USER is turned away and signed out. In Chromium, against the
// real service started with the console's trusted documents only; axe-core on the page as SUPPORT
// sees it.
import { describe, expect } from '@jest/globals';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { PASSKEYS } from '../passkeys/support.js';
import { button, focused, makeOperator, meWith, openAccount, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, screenshot, visit } from './support.js';

const { t, origin, browser } = consoleSuite();

describe('the operator console, by role', () => {
  inBrowser(
    'a SUPPORT operator signs in with a passkey, sees no block, role or delete control nor the ADMIN pages, and revokes the sessions of a user',
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Sam Support');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Zhang Min');
      const second = await t.http.post('/api/v1/auth/login-password', { phone: user.phone, password: GOOD_PASSWORD });
      const seen = await visit(browser(), { authenticator: true });
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
      expect([await meWith(t, user.accessToken), await meWith(t, second.body.accessToken)]).toEqual([401, 401]);
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
    const seen = await visit(browser());
    const { page } = seen;
    await page.goto(`${origin()}/console`);
    const signedIn = page.waitForResponse((res) => res.request().postData()?.includes('"ConsoleLoginWithPassword"') === true);
    await signInWithPassword(page, user.phone);
    const token = ((await (await signedIn).json()) as { data: { loginWithPassword: { accessToken: string } } }).data.loginWithPassword.accessToken;
    await page.getByText(`${user.phone} has no operator role`).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('It has been signed out again.');
    expect(await meWith(t, token)).toBe(401);
    expect(await page.getByRole('heading', { name: 'Accounts' }).count()).toBe(0);
    await leave(seen, origin());
  });
});
