// The operator console end to end (API.md 9.3), an ADMIN's day in Chromium, against the real service
// started with the console's trusted documents only (every request of the console names a document
// of its manifest by hash; none sends a text). Every page passes axe-core with no serious or critical
// violation, and asks nothing of another origin. It takes the README's screenshots on the way
// (UPDATE_SCREENSHOTS=1 writes them to src/console/screenshots/).
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import { GOOD_PASSWORD, registerUser, signInWithCode } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { codeAt, enrolledUser, steadyStep } from '../mfa/support.js';
import { startReceiver, webhookEnv, type Receiver } from '../webhooks/support.js';
import { button, field, focused, makeOperator, meWith, national, openAccount, signInWithSmsCode } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, leave, screenshot, visit } from './support.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  // The receiver refuses user.blocked: that delivery ends DEAD, for the webhooks page to retry.
  receiver.answer = (request) => (request.event?.type === 'user.blocked' ? 503 : 204);
});
afterAll(() => receiver?.close());

const { t, origin, browser } = consoleSuite(() => webhookEnv([receiver.url]));

describe('the operator console, as an ADMIN', () => {
  inBrowser(
    'an ADMIN signs in with an SMS code and TOTP, finds an account by its national number, blocks it with a reason (its token is refused at once), finds the block in the audit log, unblocks it, retries a webhook delivery, changes its role and deletes it',
    async () => {
      // TOTP on, confirmed with the code of the step before this one (the sign-in below then uses a
      // later step's): both REST calls of the enrolment within this step, whatever the machine's load.
      const signedIn = await signInWithCode(t);
      const admin = await enrolledUser(t, await steadyStep(5_000), signedIn);
      await makeOperator(t, admin, 'ADMIN', 'Ada Admin');
      for (const nickname of ['Li Na', 'Chen Jie']) await registerUser(t, newPhone(), GOOD_PASSWORD, nickname);
      const target = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Wang Wei');
      const seen = await visit(browser());
      const { page } = seen;

      await page.goto(`${origin()}/console`);
      await page.getByRole('heading', { name: 'Operator console' }).waitFor();
      await expectAccessible(page, 'sign-in');
      await screenshot(page, 'sign-in');
      await signInWithSmsCode(page, t, admin.phone);
      await page.getByRole('heading', { name: 'Second factor' }).waitFor();
      await expectAccessible(page, 'second factor');
      await screenshot(page, 'second-factor');
      await field(page, 'Code from the authenticator app, or a recovery code').fill(codeAt(admin.secret, Math.floor(Date.now() / 30_000)));
      await button(page, 'Verify').click();

      // Every account, newest first; then the one of a national number.
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      // Signed in, and nothing of it kept outside the page's memory.
      const stored = await page.evaluate(() => {
        const w = globalThis as any;
        return { local: w.localStorage.length, session: w.sessionStorage.length, cookie: w.document.cookie };
      });
      expect({ ...stored, cookies: await seen.context.cookies() }).toEqual({ local: 0, session: 0, cookie: '', cookies: [] });
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
      expect(await meWith(t, target.accessToken)).toBe(401);
      // The Block button is gone: the focus is on what replaced it.
      expect(await focused(page)).toMatch(/^button Unblock…/);

      // The audit log has the block, with its reason. The log is the whole database's, where other
      // suites block accounts too: the row is the one naming this account (by its short id).
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      const blocked = page.getByRole('row').filter({ hasText: 'User blocked' }).filter({ hasText: target.userId.slice(0, 8) });
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
      const retriedBefore = (await t.sql("select 1 from audit_log where action = 'WEBHOOK_RETRIED'")).length;
      await dead.getByRole('button', { name: /^Retry/ }).click();
      await button(page, 'Send it again now').click();
      await dead.getByText('PENDING').waitFor();
      expect(await t.sql("select 1 from audit_log where action = 'WEBHOOK_RETRIED'")).toHaveLength(retriedBefore + 1);

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
});
