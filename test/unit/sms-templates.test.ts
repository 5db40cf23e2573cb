// The texts of the text providers (API.md 10.3): SMS_TEMPLATES over the shipped zh-CN and en texts,
// checked at start; the autofill lines; and the locale an Accept-Language asks for.
import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.js';
import { DEFAULT_SMS_TEMPLATES, SMS_TEMPLATE_PURPOSES } from '../../src/config/sms-templates.js';
import { SmsWriter } from '../../src/modules/auth/sms/sms-text.js';
import type { SmsMessage } from '../../src/modules/auth/sms/sms-provider.js';
import { localeFromAcceptLanguage, LOCALES } from '../../src/shared/i18n/locale.js';

const dir = mkdtempSync(join(tmpdir(), 'sms-templates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A templates file holding `content` (an object is written as JSON). */
function templatesFile(content: unknown): string {
  const file = join(dir, `templates-${++files}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** A code's message; purposes are spelled as in the templates file. */
const code = (purpose: string, locale: SmsMessage['locale']): SmsMessage => ({ phone: '+8613800138000', code: '012345', purpose: purpose as SmsMessage['purpose'], ttlSeconds: 300, locale });

describe('the shipped templates', () => {
  it('has every purpose in both locales, and passes the start-up check', () => {
    expect(Object.keys(DEFAULT_SMS_TEMPLATES).sort()).toEqual([...SMS_TEMPLATE_PURPOSES].sort());
    for (const purpose of SMS_TEMPLATE_PURPOSES) expect(Object.keys(DEFAULT_SMS_TEMPLATES[purpose]).sort()).toEqual([...LOCALES].sort());
    // The same texts written as a file are accepted as they are.
    const config = loadConfig({ SMS_TEMPLATES: templatesFile(DEFAULT_SMS_TEMPLATES) });
    expect(config.sms.templates).toEqual(DEFAULT_SMS_TEMPLATES);
  });

  it('writes each code purpose in each locale with the code and its minutes', () => {
    const writer = new SmsWriter(DEFAULT_SMS_TEMPLATES, {});
    for (const purpose of SMS_TEMPLATE_PURPOSES.filter((p) => p !== 'phone-change-notice')) {
      const zh = writer.text(code(purpose, 'zh-CN'));
      const en = writer.text(code(purpose, 'en'));
      expect(zh).toContain('012345');
      expect(zh).toContain('5 分钟内有效');
      expect(en).toContain('012345');
      expect(en).toContain('expires in 5 minutes');
    }
  });

  it('tells a phone change to the old number by the last four digits of the new one, with the time it applies', () => {
    const writer = new SmsWriter(DEFAULT_SMS_TEMPLATES, {});
    const notice = (kind: 'requested' | 'changed', locale: SmsMessage['locale']) =>
      writer.text({
        phone: '+8613800138000',
        code: '',
        purpose: 'phone-change-notice',
        ttlSeconds: 0,
        locale,
        notice: kind === 'requested' ? { kind, newPhone: '+8613912345678', appliesAt: new Date('2026-12-01T08:41:30Z') } : { kind, newPhone: '+8613912345678' },
      });
    expect(notice('requested', 'zh-CN')).toBe('您账号的手机号将于 2026-12-01 08:41 UTC 更换为尾号 5678 的号码。如非本人操作，请用本号码登录并取消。');
    expect(notice('changed', 'zh-CN')).toBe('您账号的手机号已更换为尾号 5678 的号码。如非本人操作，请联系客服。');
    expect(notice('requested', 'en')).toContain('ending in 5678 on 2026-12-01 08:41 UTC');
    expect(notice('changed', 'en')).toContain('was changed to a number ending in 5678');
    for (const kind of ['requested', 'changed'] as const) for (const locale of LOCALES) expect(notice(kind, locale)).not.toContain('139123');
  });
});

describe('SMS_TEMPLATES', () => {
  it('replaces the texts it names and keeps the shipped ones for the rest', () => {
    const file = templatesFile({ login: { en: 'Meeting code {code} ({minutes} min)' }, 'phone-change-notice': { 'zh-CN': '尾号 {ending} {kind, select, requested {将于 {time} 生效} other {已生效}}' } });
    const { templates } = loadConfig({ SMS_TEMPLATES: file }).sms;
    expect(templates.login.en).toBe('Meeting code {code} ({minutes} min)');
    expect(templates.login['zh-CN']).toBe(DEFAULT_SMS_TEMPLATES.login['zh-CN']);
    expect(templates.register).toEqual(DEFAULT_SMS_TEMPLATES.register);
    expect(new SmsWriter(templates, {}).text(code('login', 'en'))).toBe('Meeting code 012345 (5 min)');
  });

  it.each([
    [{ login: { en: 'Your code expires in {minutes} minutes' } }, /SMS_TEMPLATES: login\.en: must contain \{code\}/],
    [{ 'phone-change-notice': { en: 'Your number changed' } }, /SMS_TEMPLATES: phone-change-notice\.en: must contain \{ending\}/],
    [{ register: { 'zh-CN': '验证码 {code}，{minute} 分钟' } }, /SMS_TEMPLATES: register\.zh-CN: unknown placeholder \{minute\}/],
    [{ login: { en: 'Code {code} {phone}' } }, /unknown placeholder \{phone\}/],
    [{ 'phone-change-notice': { en: 'Ending {ending}, code {code}' } }, /phone-change-notice\.en: unknown placeholder \{code\}/],
    [{ login: { en: 'Code {code' } }, /SMS_TEMPLATES: login\.en: not an ICU message/],
    [{ login: { en: '' } }, /SMS_TEMPLATES: login\.en: must be a non-empty string/],
    [{ login: { en: 42 } }, /SMS_TEMPLATES: login\.en: must be a non-empty string/],
    [{ signin: { en: 'Code {code}' } }, /SMS_TEMPLATES: unknown purpose "signin"/],
    [{ login: { fr: 'Code {code}' } }, /SMS_TEMPLATES: login: unknown locale "fr"/],
    [{ login: 'Code {code}' }, /SMS_TEMPLATES: login: must be an object of locales/],
    [['login'], /SMS_TEMPLATES: must be a JSON object of purposes/],
    ['{"login": ', /SMS_TEMPLATES: cannot read .+ as JSON/],
  ])('refuses to start with %j', (content, message) => {
    expect(() => loadConfig({ SMS_TEMPLATES: templatesFile(content) })).toThrow(message);
  });

  it('refuses a file it cannot read', () => {
    expect(() => loadConfig({ SMS_TEMPLATES: join(dir, 'missing.json') })).toThrow(/SMS_TEMPLATES: cannot read .+missing\.json as JSON/);
  });
});

describe('the autofill lines', () => {
  it('ends a code with the SMS Retriever hash and the WebOTP line, WebOTP last', () => {
    const both = new SmsWriter(DEFAULT_SMS_TEMPLATES, { webOtpDomain: 'meet.example.com', appHash: 'FA+9qCX9VSu' });
    expect(both.text(code('login', 'en')).split('\n').slice(-3)).toEqual(['', 'FA+9qCX9VSu', '@meet.example.com #012345']);
    const webOtp = new SmsWriter(DEFAULT_SMS_TEMPLATES, { webOtpDomain: 'meet.example.com' });
    expect(webOtp.text(code('phone-change', 'zh-CN'))).toMatch(/分钟内有效。请勿告诉他人。\n\n@meet\.example\.com #012345$/);
    const hash = new SmsWriter(DEFAULT_SMS_TEMPLATES, { appHash: 'FA+9qCX9VSu' });
    expect(hash.text(code('login', 'en'))).toMatch(/Do not share it\.\n\nFA\+9qCX9VSu$/);
  });

  it('leaves a notice without them: it carries no code', () => {
    const both = new SmsWriter(DEFAULT_SMS_TEMPLATES, { webOtpDomain: 'meet.example.com', appHash: 'FA+9qCX9VSu' });
    const text = both.text({ phone: '+8613800138000', code: '', purpose: 'phone-change-notice', ttlSeconds: 0, locale: 'en', notice: { kind: 'changed', newPhone: '+8613912345678' } });
    expect(text).not.toContain('@meet.example.com');
    expect(text).not.toContain('FA+9qCX9VSu');
  });

  it('takes them from SMS_WEBOTP_DOMAIN and SMS_APP_HASH, and refuses malformed ones', () => {
    expect(loadConfig({ SMS_WEBOTP_DOMAIN: 'meet.example.com', SMS_APP_HASH: 'FA+9qCX9VSu' }).sms.autofill).toEqual({ webOtpDomain: 'meet.example.com', appHash: 'FA+9qCX9VSu' });
    expect(loadConfig({}).sms.autofill).toEqual({ webOtpDomain: undefined, appHash: undefined });
    for (const domain of ['https://meet.example.com', 'meet.example.com/', 'Meet.Example.com', 'meet.example.com:443', '-meet.example.com']) {
      expect(() => loadConfig({ SMS_WEBOTP_DOMAIN: domain })).toThrow(/SMS_WEBOTP_DOMAIN: must be a lower-case host name/);
    }
    for (const hash of ['FA+9qCX9VS', 'FA+9qCX9VSuu', 'FA+9qCX9VS=']) {
      expect(() => loadConfig({ SMS_APP_HASH: hash })).toThrow(/SMS_APP_HASH: must be the 11-character hash/);
    }
  });
});

describe('the locale an Accept-Language asks for', () => {
  it.each([
    ['zh-CN', 'zh-CN'],
    ['zh', 'zh-CN'],
    ['ZH-cn', 'zh-CN'],
    ['zh-Hans-CN;q=0.9, en;q=0.8', 'zh-CN'],
    ['zh-TW', 'zh-CN'],
    ['en-US,en;q=0.9', 'en'],
    ['fr-FR, en;q=0.5, zh;q=0.7', 'zh-CN'],
    ['fr-FR, de;q=0.5, en;q=0.1', 'en'],
    ['zh;q=0, en', 'en'],
  ])('%j -> %s', (header, locale) => {
    expect(localeFromAcceptLanguage(header)).toBe(locale);
  });

  it.each([undefined, '', 'fr', '*', 'de-DE, fr;q=0.5', 'en;q=0, zh;q=0', ';;;', 'q=1'])('%j names none of ours', (header) => {
    expect(localeFromAcceptLanguage(header)).toBeUndefined();
  });
});

describe('with a template provider', () => {
  it.each(['SMS_TEMPLATES', 'SMS_WEBOTP_DOMAIN', 'SMS_APP_HASH'])('refuses %s, which would change nothing: the registered templates hold the text', (key) => {
    const value = { SMS_TEMPLATES: templatesFile({}), SMS_WEBOTP_DOMAIN: 'meet.example.com', SMS_APP_HASH: 'FA+9qCX9VSu' }[key]!;
    for (const provider of ['aliyun', 'tencent']) {
      expect(() => loadConfig({ SMS_PROVIDER: provider, [key]: value })).toThrow(new RegExp(`${key}: only used by the text providers .+ with SMS_PROVIDER=${provider}`));
    }
  });
});
