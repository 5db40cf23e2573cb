// The operator console in its two languages (API.md 10.3): in a Chromium whose language is Chinese
// (launched with --lang=zh-CN) the sign-in page, the accounts page and an account's page are in
// Chinese, <html lang="zh-CN">, clean under axe-core; in an English browser they are in English. The
// switch changes the language at once and is remembered after a reload, even against the browser's;
// the GraphQL requests ask for the console's language (Accept-Language), and a refusal of the service
// is shown in it. An account's page says the account's own language (User.locale). Against the real
// service with the console's trusted documents only.
import { afterAll, beforeAll, describe, expect } from '@jest/globals';
import type { Browser, Page, Request } from 'playwright-core';
import { GOOD_PASSWORD, registerUser } from '../helpers/factories.js';
import { newPhone } from '../helpers/server.js';
import { button, field, makeOperator, openAccount, signInWithPassword } from './drive.js';
import { consoleSuite, expectAccessible, inBrowser, launchChromium, leave, visit } from './support.js';

const { t, origin, browser } = consoleSuite();

// A second browser, set to Simplified Chinese as a Chinese operator's would be.
let chinese: Browser | undefined;
beforeAll(async () => {
  chinese = await launchChromium('zh-CN');
}, 30_000);
afterAll(async () => {
  await chinese?.close();
});

const SWITCH = '语言 · Language';
const htmlLang = (page: Page) => page.evaluate(() => (globalThis as any).document.documentElement.lang as string);
const stored = (page: Page) => page.evaluate(() => (globalThis as any).localStorage.getItem('console:locale') as string | null);

/** The Accept-Language of every GraphQL request the page sends from now on. */
function languagesAsked(page: Page): string[] {
  const asked: string[] = [];
  page.on('request', (request: Request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/graphql') asked.push(request.headers()['accept-language'] ?? '(none)');
  });
  return asked;
}

/** What the account's profile says under `term` (the <dd> after the <dt>). */
const fact = (page: Page, term: string) =>
  page.getByRole('region', { name: /^(Profile|资料)$/ }).locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');

/** The account's own language (User.locale), as its owner sets it. */
async function chooseLocale(token: string, locale: 'zh-CN' | 'en'): Promise<void> {
  const res = await t.http.request('PATCH', '/api/v1/users/me', { token, body: { locale } });
  expect({ status: res.status, locale: res.body.locale }).toEqual({ status: 200, locale });
}

/** Signs in with the password, as the sign-in page says it in Chinese. */
async function signInInChinese(page: Page, phone: string): Promise<void> {
  await field(page, '手机号').fill(phone);
  await page.getByRole('radio', { name: '账号密码' }).check();
  await field(page, '密码').fill(GOOD_PASSWORD);
  await button(page, '登录').click();
}

describe('the operator console in Chinese and in English', () => {
  inBrowser(
    "in a browser whose language is Chinese: the sign-in page, the accounts and an account's page in Chinese, axe clean, every request asking for zh-CN",
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', '王客服');
      const user = await registerUser(t, newPhone(), GOOD_PASSWORD, '李阳');
      await chooseLocale(user.accessToken, 'zh-CN');
      const seen = await visit(chinese!, { locale: null });
      const { page } = seen;
      const asked = languagesAsked(page);
      expect(await page.evaluate(() => (globalThis as any).navigator.languages as string[])).toEqual(['zh-CN']);
      await page.goto(`${origin()}/console`);
      await page.getByRole('heading', { name: '运营控制台' }).waitFor();
      expect(await htmlLang(page)).toBe('zh-CN');
      expect(await page.title()).toBe('登录 · 运营控制台');
      await page.getByRole('heading', { name: '使用手机号登录' }).waitFor();
      expect(await page.getByLabel(SWITCH).inputValue()).toBe('zh-CN');
      // Following the browser stores nothing: only the operator's choice is kept.
      expect(await stored(page)).toBeNull();
      await expectAccessible(page, 'sign-in, zh-CN');

      await signInInChinese(page, support.phone);
      await page.getByRole('heading', { name: '账号', exact: true }).waitFor();
      expect(await page.title()).toBe('账号 · 运营控制台');
      await page.getByText(`王客服 · ${support.phone} · 客服`).waitFor();
      await page.getByRole('navigation', { name: '控制台' }).getByRole('link', { name: '账号' }).waitFor();
      await button(page, '退出登录').waitFor();

      await field(page, '手机号、昵称或 ID').fill(user.phone);
      await button(page, '搜索').click();
      const results = page.getByRole('table', { name: `与“${user.phone}”匹配的账号，按创建时间从新到旧` });
      await results.waitFor();
      expect(await results.locator('thead th').allTextContents()).toEqual(['手机号', '昵称', '角色', '状态', '会话数', '创建时间', '最近登录']);
      expect(await results.locator('tbody tr').first().locator('td').allTextContents()).toEqual(expect.arrayContaining(['李阳', '普通用户', '正常']));
      await expectAccessible(page, 'accounts, zh-CN');

      await results.getByRole('link', { name: user.phone }).click();
      await page.getByRole('heading', { name: `账号 ${user.phone}` }).waitFor();
      expect(await page.title()).toBe(`${user.phone} · 运营控制台`);
      await page.getByRole('heading', { name: '活跃会话（1）' }).waitFor();
      const profile = page.getByRole('region', { name: '资料' });
      await profile.getByText('无待处理的变更').waitFor();
      await profile.getByText('未设置（使用短信验证码登录）').or(profile.getByText('已设置')).waitFor();
      expect(await fact(page, '语言').textContent()).toBe('中文 (zh-CN)');
      // Dates as Chinese writes them: 2026年11月28日 08:45.
      expect(await profile.locator('time').first().textContent()).toMatch(/^\d{4}年\d{1,2}月\d{1,2}日 \d{1,2}:\d{2}$/);
      const events = page.getByRole('table', { name: '安全事件，从新到旧' });
      await events.waitFor();
      expect(await events.locator('thead th').allTextContents()).toEqual(['时间', '事件', '方式', 'IP 地址', '设备']);
      await page.getByRole('region', { name: '操作' }).getByRole('button', { name: '撤销全部会话…' }).waitFor();
      await expectAccessible(page, 'account, zh-CN');

      expect(asked.length).toBeGreaterThan(2);
      expect(new Set(asked)).toEqual(new Set(['zh-CN']));
      await leave(seen, origin());
    },
    60_000,
  );

  inBrowser(
    "a refusal of the service and a failed request are shown in the console's language, which the requests ask for whatever the browser's is; a choice of English is remembered over the browser's Chinese",
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Sun Support');
      const seen = await visit(chinese!, { locale: null });
      const { page } = seen;
      const asked = languagesAsked(page);
      await page.goto(`${origin()}/console`);
      await page.getByRole('heading', { name: '运营控制台' }).waitFor();

      // A wrong password: the service's message, as it answered the console's request, after the
      // console's own words in Chinese, with the code.
      const refusal = async (page: Page, submit: string) => {
        const answered = page.waitForResponse((res) => res.request().postData()?.includes('"ConsoleLoginWithPassword"') === true);
        await button(page, submit).click();
        const body = (await (await answered).json()) as { errors: { message: string; extensions: { code: string } }[] };
        expect(body.errors[0]!.extensions.code).toBe('INVALID_CREDENTIALS');
        return body.errors[0]!.message;
      };
      await field(page, '手机号').fill(support.phone);
      await page.getByRole('radio', { name: '账号密码' }).check();
      await field(page, '密码').fill(`Wrong-${GOOD_PASSWORD}`);
      const zhMessage = await refusal(page, '登录');
      await page.getByRole('alert').filter({ hasText: zhMessage }).waitFor();
      expect(await page.getByRole('alert').textContent()).toBe(`服务拒绝了请求：${zhMessage} INVALID_CREDENTIALS`);
      expect(asked.at(-1)).toBe('zh-CN');
      // The service answered in the language the console asked for.
      expect(zhMessage).toMatch(/\p{Script=Han}/u);
      await expectAccessible(page, 'sign-in refused, zh-CN');

      // No answer at all: the console's own message, in Chinese.
      await page.route('**/graphql', (route) => route.abort('connectionrefused'));
      await button(page, '登录').click();
      await page.getByRole('alert').filter({ hasText: '无法连接到服务：请检查网络连接后重试。' }).waitFor();
      await page.unroute('**/graphql');

      // English, chosen on the page of a Chinese browser: at once, and asked of the service.
      await page.getByLabel(SWITCH).selectOption({ label: 'English' });
      await page.getByRole('heading', { name: 'Operator console' }).waitFor();
      expect(await htmlLang(page)).toBe('en');
      expect(await page.title()).toBe('Sign in · Operator console');
      expect(await stored(page)).toBe('en');
      const enMessage = await refusal(page, 'Sign in');
      await page.getByRole('alert').filter({ hasText: 'The service refused' }).waitFor();
      expect(asked.at(-1)).toBe('en');
      expect(enMessage).not.toMatch(/\p{Script=Han}/u);
      expect(await page.getByRole('alert').textContent()).toBe(`The service refused: ${enMessage} INVALID_CREDENTIALS`);
      await expectAccessible(page, 'sign-in refused, en');

      // Remembered: a reload (and a new page of the same browser profile) is in English.
      await page.reload();
      await page.getByRole('heading', { name: 'Operator console' }).waitFor();
      expect(await htmlLang(page)).toBe('en');
      expect(await page.getByLabel(SWITCH).inputValue()).toBe('en');
      await leave(seen, origin());
    },
    60_000,
  );

  inBrowser(
    "an account's own language (User.locale) on its page: English, not chosen, in either language of the console",
    async () => {
      const support = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, support, 'SUPPORT', 'Lin Support');
      const english = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Emma English');
      await chooseLocale(english.accessToken, 'en');
      const unset = await registerUser(t, newPhone(), GOOD_PASSWORD, 'Nora None');
      const seen = await visit(browser());
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      await signInWithPassword(page, support.phone);
      await page.getByRole('heading', { name: 'Accounts' }).waitFor();
      await openAccount(page, english.phone, english.phone);
      expect(await fact(page, 'Language').textContent()).toBe('English');
      await page.getByRole('link', { name: 'Back to the accounts' }).click();
      await openAccount(page, unset.phone, unset.phone);
      expect(await fact(page, 'Language').textContent()).toBe('not chosen');
      await page.getByLabel(SWITCH).selectOption({ label: '中文' });
      await page.getByRole('heading', { name: `账号 ${unset.phone}` }).waitFor();
      expect(await fact(page, '语言').textContent()).toBe('未选择');
      await expectAccessible(page, 'account, zh-CN, switched');
      await leave(seen, origin());
    },
    60_000,
  );

  inBrowser(
    'in an English browser: in English with <html lang="en">; the switch turns it Chinese at once, everywhere, remembered after a reload, and back',
    async () => {
      const admin = await registerUser(t, newPhone(), GOOD_PASSWORD);
      await makeOperator(t, admin, 'ADMIN', 'Ada Admin');
      const seen = await visit(browser());
      const { page } = seen;
      await page.goto(`${origin()}/console`);
      await page.getByRole('heading', { name: 'Operator console' }).waitFor();
      expect(await htmlLang(page)).toBe('en');
      expect(await page.title()).toBe('Sign in · Operator console');
      expect(await page.getByLabel(SWITCH).inputValue()).toBe('en');
      expect(await page.getByLabel(SWITCH).locator('option').allTextContents()).toEqual(['中文', 'English']);
      expect(await stored(page)).toBeNull();

      await page.getByLabel(SWITCH).selectOption({ label: '中文' });
      await page.getByRole('heading', { name: '运营控制台' }).waitFor();
      expect(await htmlLang(page)).toBe('zh-CN');
      expect(await page.title()).toBe('登录 · 运营控制台');
      expect(await stored(page)).toBe('zh-CN');
      await page.reload();
      await page.getByRole('heading', { name: '运营控制台' }).waitFor();
      expect(await htmlLang(page)).toBe('zh-CN');

      // Signed in, in Chinese: the ADMIN's pages too.
      await signInInChinese(page, admin.phone);
      await page.getByRole('heading', { name: '账号', exact: true }).waitFor();
      await page.getByRole('link', { name: '审计日志' }).click();
      await page.getByRole('heading', { name: '审计日志' }).waitFor();
      await page.getByRole('table', { name: '审计记录，从新到旧' }).or(page.getByText('审计日志为空。')).waitFor();
      // The live indicator, in Chinese too.
      await page.getByRole('status').filter({ hasText: /^实时$/ }).waitFor();
      await expectAccessible(page, 'audit log, zh-CN');
      await page.getByRole('link', { name: 'Webhook 投递' }).click();
      await page.getByRole('heading', { name: 'Webhook 投递' }).waitFor();
      await page.getByLabel('状态').locator('option').allTextContents().then((options) => expect(options).toEqual(['全部', '待投递', '已送达', '已放弃']));
      await expectAccessible(page, 'webhook deliveries, zh-CN');

      // Back to English from the header's switch: the page as it is, redrawn, and its title.
      await page.getByLabel(SWITCH).selectOption({ label: 'English' });
      await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor();
      expect(await page.title()).toBe('Webhook deliveries · Operator console');
      expect(await htmlLang(page)).toBe('en');
      await page.getByLabel('Status').locator('option').allTextContents().then((options) => expect(options).toEqual(['Any', 'PENDING', 'DELIVERED', 'DEAD']));
      await button(page, 'Sign out').waitFor();
      await expectAccessible(page, 'webhook deliveries, en');
      expect(await stored(page)).toBe('en');
      await leave(seen, origin());
    },
    60_000,
  );
});
