// The operator console's live socket (API.md 10.2), in Chromium against the real service started
// with the console's trusted documents only (its subscriptions too are manifest documents): the
// audit log grows as another operator acts, without a reload, and a session ended elsewhere returns
// the console to its sign-in form at once, without a request of its own to find out.
import { describe, expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { sleep } from '../helpers/wait.js';
import { field, makeOperator, meWith, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, visit, type Visit } from './support.js';

const { t, origin, browser } = consoleSuite();

const ELSEWHERE = 'Signed out elsewhere: this session was ended on another device or by an operator. Sign in again to go on where you were.';

/** Signs `phone` in with its password: the console's access token, read from the sign-in's answer. */
async function signIn(page: Page, phone: string): Promise<string> {
  const answered = page.waitForResponse((res) => res.request().postData()?.includes('"ConsoleLoginWithPassword"') === true);
  await signInWithPassword(page, phone);
  const token = ((await (await answered).json()) as { data: { loginWithPassword: { accessToken: string } } }).data.loginWithPassword.accessToken;
  await page.getByRole('heading', { name: 'Accounts' }).waitFor();
  await page.waitForLoadState('networkidle');
  return token;
}

/** The page's loads and its GraphQL requests so far: neither grows while the page only listens. */
const requestsOf = (seen: Visit, loads: number[]) => ({ loads: loads.length, operations: [...seen.operations] });

describe("the operator console's live events", () => {
  inBrowser(
    "an ADMIN's open audit log shows another operator's block at the top within seconds, without a reload or a request",
    async () => {
      const [admin, other] = [await registerUser(t, newPhone(), GOOD_PASSWORD), await registerUser(t, newPhone(), GOOD_PASSWORD)];
      await makeOperator(t, admin, 'ADMIN', 'Ada Admin');
      await makeOperator(t, other, 'ADMIN', 'Olu Other');
      const target = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Wang Wei');
      const seen = await visit(browser());
      const { page } = seen;
      const loads: number[] = [];
      page.on('load', () => loads.push(Date.now()));
      await page.goto(`${origin()}/console`);
      await signIn(page, admin.phone);
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      await page.getByRole('status').filter({ hasText: /^Live$/ }).waitFor();
      await page.getByRole('table', { name: 'Audit entries, newest first' }).or(page.getByText('The audit log is empty.')).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'User blocked' }).filter({ hasText: target.userId.slice(0, 8) });
      expect(await row.count()).toBe(0);
      const before = requestsOf(seen, loads);

      const reason = `live test ${target.userId.slice(0, 8)}`;
      const blocked = Date.now();
      expect((await t.http.post(`/api/v1/admin/users/${target.userId}/block`, { reason }, { token: other.accessToken })).status).toBe(200);
      await row.waitFor({ timeout: 3_000 });
      const shownAfterMs = Date.now() - blocked;
      expect(shownAfterMs).toBeLessThan(2_500);
      expect(await row.textContent()).toContain(reason);
      expect(await row.getByRole('link', { name: other.userId.slice(0, 8) }).count()).toBe(1);
      // At the top: the first row of the table's body.
      expect(await page.locator('tbody tr').first().textContent()).toBe(await row.textContent());
      expect(requestsOf(seen, loads)).toEqual(before);
      await expectAccessible(page, 'audit log, live');

      // A second action: on top of the first.
      expect((await t.http.post(`/api/v1/admin/users/${target.userId}/unblock`, {}, { token: other.accessToken })).status).toBe(200);
      await page.locator('tbody tr').first().filter({ hasText: 'User unblocked' }).waitFor({ timeout: 3_000 });
      expect(await page.locator('tbody tr').nth(1).textContent()).toBe(await row.textContent());
      expect(requestsOf(seen, loads)).toEqual(before);
      await leave(seen, origin());
    },
    30_000,
  );

  inBrowser(
    "the operator's session logged out with the console's own token elsewhere: the console shows that it was signed out elsewhere within a second or two; another session's logout leaves it signed in",
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Sam Support');
      const seen = await visit(browser());
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      const token = await signIn(page, support.phone);
      const operations = seen.operations.length;

      // The same operator's other session ends: not this one.
      const phone = await t.http.post('/api/v1/auth/login-password', { phone: support.phone, password: GOOD_PASSWORD });
      expect((await t.http.post('/api/v1/auth/logout', {}, { token: phone.body.accessToken })).status).toBe(204);
      await sleep(1_500);
      expect(await page.getByRole('heading', { name: 'Accounts' }).isVisible()).toBe(true);
      expect(await meWith(t, token)).toBe(200);

      // This one ends.
      const ended = Date.now();
      expect((await t.http.post('/api/v1/auth/logout', {}, { token })).status).toBe(204);
      await page.getByRole('alert').filter({ hasText: ELSEWHERE }).waitFor({ timeout: 3_000 });
      expect(Date.now() - ended).toBeLessThan(2_000);
      await field(page, 'Phone number').waitFor();
      // Told by the socket, not by a request that failed.
      expect(seen.operations.slice(operations)).toEqual([]);
      await expectAccessible(page, 'sign-in, signed out elsewhere');
      await leave(seen, origin());
    },
    30_000,
  );

  inBrowser("an ADMIN's console whose account another ADMIN revokes every session of, or blocks, returns to the sign-in form at once", async () => {
    const [admin, other] = [await registerUser(t, newPhone(), GOOD_PASSWORD), await registerUser(t, newPhone(), GOOD_PASSWORD)];
    await makeOperator(t, admin, 'ADMIN', 'Ada Admin');
    await makeOperator(t, other, 'ADMIN', 'Olu Other');
    const seen = await visit(browser());
    const { page } = seen;
    await page.goto(`${origin()}/console`);
    await signIn(page, admin.phone);

    let ended = Date.now();
    expect((await t.http.post(`/api/v1/admin/users/${admin.userId}/sessions/revoke`, {}, { token: other.accessToken })).status).toBe(204);
    await page.getByRole('alert').filter({ hasText: ELSEWHERE }).waitFor({ timeout: 3_000 });
    expect(Date.now() - ended).toBeLessThan(2_000);

    // Signed in again, then blocked: the same.
    await signIn(page, admin.phone);
    ended = Date.now();
    expect((await t.http.post(`/api/v1/admin/users/${admin.userId}/block`, { reason: 'left the team' }, { token: other.accessToken })).status).toBe(200);
    await page.getByRole('alert').filter({ hasText: ELSEWHERE }).waitFor({ timeout: 3_000 });
    expect(Date.now() - ended).toBeLessThan(2_000);
    await leave(seen, origin());
  });
});
