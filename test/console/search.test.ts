// The operator console's accounts page in Chromium: a result's row opens its account from anywhere
// in it, not only from its phone link, which stays the row's one control for the keyboard (and the
// page stays clean under axe-core). Against the real service with the console's trusted documents only.
import { describe, expect } from '@jest/globals';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { button, field, focused, makeOperator, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, visit } from './support.js';

const { t, origin, browser } = consoleSuite();

describe('the accounts page', () => {
  inBrowser(
    "a click anywhere in a result's row opens its account; by the keyboard, its phone link does; a click on the link opens it once",
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Rita Rows');
      const tag = `Row${Date.now().toString(36)}`;
      const older = await registerUser(t, newPhone(), GOOD_PASSWORD, `${tag} Older`);
      const newer = await registerUser(t, newPhone(), GOOD_PASSWORD, `${tag} Newer`);
      const seen = await visit(browser());
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      await signInWithPassword(page, support.phone);
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      // The search by the form (a reload would sign out: the console keeps its tokens in the page's memory).
      await field(page, 'Phone, nickname or id').fill(tag);
      await button(page, 'Search').click();
      const results = page.getByRole('table', { name: `Accounts matching “${tag}”, newest first` });
      await results.waitFor();
      expect(await results.locator('tbody tr').count()).toBe(2);
      await expectAccessible(page, 'accounts, rows that open');
      const searched = page.url();

      // The nickname's cell of the older account's row: its account, a history entry of its own.
      await results.getByRole('row').filter({ hasText: older.phone }).getByRole('cell', { name: `${tag} Older` }).click();
      await page.getByRole('heading', { name: `Account ${older.phone}` }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/users/${older.userId}`);
      await page.goBack();
      await results.waitFor();
      expect(page.url()).toBe(searched);

      // The row's status badge, in another column: the newer account.
      await results.getByRole('row').filter({ hasText: newer.phone }).getByText('ACTIVE').click();
      await page.getByRole('heading', { name: `Account ${newer.phone}` }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/console/users/${newer.userId}`);
      await page.goBack();
      await results.waitFor();

      // The keyboard: the rows add no stop of their own; Tab reaches the phone link, Enter opens it.
      const link = results.getByRole('link', { name: newer.phone });
      await link.focus();
      expect(await focused(page)).toBe(`a ${newer.phone}`);
      await page.keyboard.press('Shift+Tab');
      expect(await focused(page)).toMatch(/^button Search/);
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe(`a ${newer.phone}`);
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe(`a ${older.phone}`);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: `Account ${older.phone}` }).waitFor();
      await page.goBack();
      await results.waitFor();

      // The link itself, clicked: one navigation (Back is the search again, not a second account entry).
      await link.click();
      await page.getByRole('heading', { name: `Account ${newer.phone}` }).waitFor();
      await page.goBack();
      await results.waitFor();
      expect(page.url()).toBe(searched);
      await leave(seen, origin());
    },
    60_000,
  );
});
