// The operator console end to end (API.md 9.3): its session (refreshed before the access token
// expires; ended elsewhere, back to the sign-in form with a message, at once when the live socket
// tells of it) and its page's confinement to its own origin (the CSP header, an injected inline
// script and a request elsewhere refused). In Chromium, against the real service started with the
// console's trusted documents only.
import { describe, expect } from '@jest/globals';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { button, makeOperator, openAccount, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, visit } from './support.js';

// The shortest access-token lifetime the service allows: the console refreshes it 15 s before expiry.
const { t, origin, browser } = consoleSuite(() => ({ ACCESS_TOKEN_TTL_SECONDS: '60' }));

describe("the operator console's session and page", () => {
  inBrowser(
    'refreshes the access token before it expires; a session ended meanwhile returns to the sign-in form with a message, then to the same page',
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Sam Support');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Liu Yang');
      const seen = await visit(browser());
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

      // The session ended where no live event tells of it (in the database itself): the next action
      // finds it over.
      await t.sql('update sessions set revoked_at = now() where user_id = $1', [support.userId]);
      await button(page, 'Revoke all sessions…').click();
      await button(page, 'Revoke all sessions').click();
      await page.getByText('Your session has ended (UNAUTHENTICATED): sign in again to go on where you were.').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/users/${user.userId}`);
      await expectAccessible(page, 'sign-in after the session ended');
      await signInWithPassword(page, support.phone);
      await page.getByRole('heading', { name: `Account ${user.phone}` }).waitFor();

      // Signed out everywhere from elsewhere: the live socket tells the console at once (live.test.ts
      // times it); signed in again, the same page.
      const elsewhere = await t.http.post('/api/v1/auth/login-password', { phone: support.phone, password: GOOD_PASSWORD });
      expect((await t.http.post('/api/v1/auth/logout', { allSessions: true }, { token: elsewhere.body.accessToken })).status).toBe(204);
      await page.getByText('Signed out elsewhere: this session was ended on another device or by an operator.').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/users/${user.userId}`);
      await signInWithPassword(page, support.phone);
      await page.getByRole('heading', { name: `Account ${user.phone}` }).waitFor();
      await leave(seen, origin());
    },
    30_000,
  );

  inBrowser("holds the page to its own origin: the CSP header is there, and refuses an injected inline script and a request elsewhere", async () => {
    const seen = await visit(browser());
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
  });});
