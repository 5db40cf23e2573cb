// The operator console's change of an account's phone number (API.md 10.1, "Operators"), in Chromium
// against the real service with the console's trusted documents only: an ADMIN starts it with a
// reason from the account page, which shows it WAITING with the new number and when it applies; the
// user, over the API, sees PHONE_CHANGE_REQUESTED among their events and cancels it; after a reload
// the page shows none pending. SUPPORT has no such control.
import { describe, expect } from '@jest/globals';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { button, field, focused, makeOperator, national, openAccount, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, visit } from './support.js';

const { t, origin, browser } = consoleSuite();
const REASON = 'Reason (required, up to 500 characters)';

describe("the operator console, an account's phone number", () => {
  inBrowser(
    'an ADMIN starts a change with a reason, the page shows it waiting; the user sees the event and cancels it; a reload shows it gone',
    async () => {
      const admin = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, admin, 'ADMIN', 'Ada Admin');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Zhao Lei');
      const to = newPhone();
      const seen = await visit(browser());
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      await signInWithPassword(page, admin.phone);
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      await openAccount(page, user.phone, user.phone);
      const profile = page.getByRole('region', { name: 'Profile' });
      await profile.getByText('none pending').waitFor();

      // The dialog: the focus on its first field; nothing is sent without a number and a reason.
      await button(page, 'Change phone number…').click();
      const dialog = page.getByRole('dialog', { name: `Change the phone number of ${user.phone}` });
      await dialog.waitFor();
      expect(await focused(page)).toMatch(/^input#change-phone/);
      await button(page, 'Start the change').click();
      await dialog.getByText('Give the new phone number.').waitFor();
      await field(page, 'New phone number').fill(national(to));
      await button(page, 'Start the change').click();
      await dialog.getByText(/^Give a reason/).waitFor();
      expect(seen.operations).not.toContain('ConsoleChangePhone');
      // A number the API refuses: its message and code in the dialog, what was typed kept.
      await field(page, 'New phone number').fill('12345');
      await field(page, REASON).fill('  Lost phone; identity checked in ticket 4711 ');
      await button(page, 'Start the change').click();
      await dialog.getByText('INVALID_PHONE').waitFor();
      expect(await field(page, REASON).inputValue()).toBe('  Lost phone; identity checked in ticket 4711 ');
      await expectAccessible(page, 'phone change dialog');
      await field(page, 'New phone number').fill(national(to));
      await button(page, 'Start the change').click();
      await dialog.waitFor({ state: 'hidden' });

      // The page shows it waiting: the new number, when it applies.
      await profile.getByText(`to ${to}`).waitFor();
      await profile.getByText('WAITING').waitFor();
      const pending = await t.http.get('/api/v1/users/me/phone-change', { token: user.accessToken });
      expect(pending.body).toMatchObject({ phone: to, status: 'WAITING' });
      expect(await profile.locator('dd', { hasText: `to ${to}` }).locator('time').getAttribute('datetime')).toBe(pending.body.appliesAt);
      expect(await t.sql('select 1 from users where id = $1 and phone = $2', [user.userId, user.phone])).toHaveLength(1);
      await page.getByRole('table', { name: 'Audit entries about this account, newest first' }).getByText('Lost phone; identity checked in ticket 4711').waitFor();
      await expectAccessible(page, 'account with a pending phone change');

      // The user, over the API: the event (the change they saw above); they cancel it.
      const events = await t.http.get('/api/v1/users/me/security-events', { token: user.accessToken });
      expect(events.body.items.map((e: { type: string }) => e.type)).toContain('PHONE_CHANGE_REQUESTED');
      expect((await t.http.request('DELETE', '/api/v1/users/me/phone-change', { token: user.accessToken })).status).toBe(204);

      // A reload (the console keeps its session in the page's memory: sign in again, back on the same page).
      await page.reload();
      await signInWithPassword(page, admin.phone);
      await page.getByRole('heading', { name: `Account ${user.phone}` }).waitFor();
      await profile.getByText('none pending').waitFor();
      expect(await profile.getByText(`to ${to}`).count()).toBe(0);
      expect(seen.operations.filter((name) => !name.startsWith('Console'))).toEqual([]);
      expect(seen.withText).toEqual([]);
      await leave(seen, origin());
    },
    60_000,
  );

  inBrowser('SUPPORT has no control to change a phone number', async () => {
    const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
    await makeOperator(t, support, 'SUPPORT', 'Sam Support');
    const user = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Qian Hua');
    const seen = await visit(browser());
    const { page } = seen;
    await page.goto(`${origin()}/console`);
    await signInWithPassword(page, support.phone);
    await openAccount(page, user.phone, user.phone);
    await page.getByRole('region', { name: 'Profile' }).getByText('none pending').waitFor();
    expect(await page.getByRole('button', { name: /^Change phone number/ }).count()).toBe(0);
    await leave(seen, origin());
  });
});
