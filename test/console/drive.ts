// The operator console as an operator drives it: controls found by their visible labels, the
// keyboard where a person would use it; and what the tests check beside the page, over HTTP and SQL.
import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { GOOD_PASSWORD, type Session } from '../helpers/factories.js';
import type { TestServer } from '../helpers/server.js';

/** A Chinese mobile number in national form, spaced as people write it: 138 1234 5678. */
export const national = (phone: string) => phone.replace(/^\+86(\d{3})(\d{4})(\d{4})$/, '$1 $2 $3');
export const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
export const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true });

/** What has the keyboard focus: `tag#id text`. */
export const focused = (page: Page) =>
  page.evaluate(() => {
    // In the page: the DOM's types are not part of this project's compilation.
    const element = (globalThis as any).document.activeElement;
    return element ? `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''} ${(element.textContent ?? '').trim().slice(0, 40)}` : '';
  });

/** The status GET /api/v1/users/me answers `token` with: 200 while its session lives, 401 once it is over. */
export const meWith = async (t: TestServer, token: string) => (await t.http.get('/api/v1/users/me', { token })).status;

export async function makeOperator(t: TestServer, session: Session, role: 'SUPPORT' | 'ADMIN', nickname: string): Promise<void> {
  await t.sql('update users set role = $2, nickname = $3 where id = $1', [session.userId, role, nickname]);
}

export async function signInWithSmsCode(page: Page, t: TestServer, phone: string): Promise<void> {
  await field(page, 'Phone number').fill(phone);
  await button(page, 'Send code').click();
  await page.getByText(`A code was sent to ${phone}`).waitFor();
  await field(page, 'Code from the SMS').fill(await t.codeFor(phone));
  await button(page, 'Sign in').click();
}

/** By the keyboard alone: the password's radio button chosen with the arrow keys, Enter to sign in. */
export async function signInWithPassword(page: Page, phone: string): Promise<void> {
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
export async function openAccount(page: Page, query: string, phone: string): Promise<void> {
  await field(page, 'Phone, nickname or id').fill(query);
  await field(page, 'Phone, nickname or id').press('Enter');
  await page.getByText(`Accounts matching “${query}”, newest first`).waitFor();
  expect(await page.locator('tbody tr').count()).toBe(1);
  await page.getByRole('link', { name: phone }).click();
  await page.getByRole('heading', { name: `Account ${phone}` }).waitFor();
  await page.getByRole('table', { name: 'Security events, newest first' }).waitFor();
}
