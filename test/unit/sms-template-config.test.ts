import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { aliyunOutcome, aliyunPhoneNumber } from '../../src/modules/auth/sms/aliyun-sms.js';
import { tencentOutcome } from '../../src/modules/auth/sms/tencent-sms.js';
import { templateParams, transportOutcome } from '../../src/modules/auth/sms/template-sms.js';

const PURPOSES = ['login', 'register', 'reset-password', 'delete-account', 'phone-change', 'phone-change-current', 'phone-change-notice'];
const aliyunTemplates = (extra: Record<string, unknown> = {}) => JSON.stringify({ ...Object.fromEntries(PURPOSES.map((p, i) => [p, `SMS_10000${i}`])), ...extra });
const tencentTemplates = (extra: Record<string, unknown> = {}) => JSON.stringify({ ...Object.fromEntries(PURPOSES.map((p, i) => [p, `20000${i}`])), ...extra });

const ALIYUN = {
  SMS_PROVIDER: 'aliyun',
  ALIYUN_SMS_ACCESS_KEY_ID: 'LTAI5tTestKeyId',
  ALIYUN_SMS_ACCESS_KEY_SECRET: 'test-access-key-secret',
  ALIYUN_SMS_SIGN_NAME: '会议账号',
  ALIYUN_SMS_TEMPLATES: aliyunTemplates(),
};
const TENCENT = {
  SMS_PROVIDER: 'tencent',
  TENCENT_SMS_SECRET_ID: 'AKIDtest',
  TENCENT_SMS_SECRET_KEY: 'test-secret-key',
  TENCENT_SMS_SDK_APP_ID: '1400006666',
  TENCENT_SMS_SIGN_NAME: '会议账号',
  TENCENT_SMS_TEMPLATES: tencentTemplates(),
};

/** Every problem loadConfig lists for `env`. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('the configuration was accepted');
}

describe('configuration: SMS_PROVIDER=aliyun', () => {
  it('reads the credentials, sign name, a template per purpose and the default endpoint', () => {
    const { sms } = loadConfig(ALIYUN);
    expect(sms.provider).toBe('aliyun');
    expect(sms.aliyun).toEqual({
      accessKeyId: 'LTAI5tTestKeyId',
      accessKeySecret: 'test-access-key-secret',
      signName: '会议账号',
      endpoint: 'https://dysmsapi.aliyuncs.com',
      templates: Object.fromEntries(PURPOSES.map((p, i) => [p, { 'zh-CN': `SMS_10000${i}`, en: `SMS_10000${i}` }])),
    });
    expect(sms.tencent).toBeUndefined();
    expect(loadConfig({ ...ALIYUN, ALIYUN_SMS_ENDPOINT: 'http://127.0.0.1:8080' }).sms.aliyun?.endpoint).toBe('http://127.0.0.1:8080');
  });

  it('takes a template per locale, both locales then required', () => {
    const templates = aliyunTemplates({ login: { 'zh-CN': 'SMS_200001', en: 'SMS_200002' } });
    expect(loadConfig({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: templates }).sms.aliyun?.templates.login).toEqual({ 'zh-CN': 'SMS_200001', en: 'SMS_200002' });
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: aliyunTemplates({ login: { 'zh-CN': 'SMS_200001' } }) })).toEqual([
      'ALIYUN_SMS_TEMPLATES: login has no template for en (give both zh-CN and en, or one template for every locale)',
    ]);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: aliyunTemplates({ login: { 'zh-CN': 'SMS_1', en: 'SMS_2', fr: 'SMS_3' } }) })).toEqual([
      'ALIYUN_SMS_TEMPLATES: login has unknown locale fr (locales: zh-CN, en)',
    ]);
  });

  it('refuses to start without credentials, sign name or templates, naming each variable', () => {
    expect(problemsOf({ SMS_PROVIDER: 'aliyun' })).toEqual([
      'ALIYUN_SMS_ACCESS_KEY_ID: required when SMS_PROVIDER=aliyun',
      'ALIYUN_SMS_ACCESS_KEY_SECRET: required when SMS_PROVIDER=aliyun',
      'ALIYUN_SMS_SIGN_NAME: required when SMS_PROVIDER=aliyun',
      'ALIYUN_SMS_TEMPLATES: required (a JSON object with a template for each of login, register, reset-password, delete-account, phone-change, phone-change-current, phone-change-notice)',
    ]);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_SIGN_NAME: '   ' })).toEqual(['ALIYUN_SMS_SIGN_NAME: required when SMS_PROVIDER=aliyun']);
  });

  it('refuses a missing template, an unknown purpose, malformed JSON and ids that are no template codes', () => {
    const { 'phone-change-notice': _notice, ...withoutNotice } = JSON.parse(aliyunTemplates()) as Record<string, string>;
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: JSON.stringify(withoutNotice) })).toEqual(['ALIYUN_SMS_TEMPLATES: no template for phone-change-notice']);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: aliyunTemplates({ signup: 'SMS_1' }) })).toEqual([
      `ALIYUN_SMS_TEMPLATES: unknown purpose signup (purposes: ${PURPOSES.join(', ')})`,
    ]);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: '{"login": "SMS_1",' })).toEqual([
      'ALIYUN_SMS_TEMPLATES: is not valid JSON (expected an object such as {"login": "SMS_123456789", …})',
    ]);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: '["SMS_1"]' })).toEqual(['ALIYUN_SMS_TEMPLATES: must be a JSON object, purpose -> template']);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_TEMPLATES: aliyunTemplates({ register: '' , login: 12345 }) })).toEqual([
      'ALIYUN_SMS_TEMPLATES: login is not a template id such as "SMS_123456789" (or {"zh-CN": …, "en": …})',
      'ALIYUN_SMS_TEMPLATES: register is not a template id such as "SMS_123456789" (or {"zh-CN": …, "en": …})',
    ]);
    expect(problemsOf({ ...ALIYUN, ALIYUN_SMS_ENDPOINT: 'dysmsapi.aliyuncs.com' })).toEqual(['ALIYUN_SMS_ENDPOINT: must be an http(s) URL']);
  });

  it('does not look at the Alibaba Cloud variables with another provider', () => {
    expect(loadConfig({ SMS_PROVIDER: 'console', ALIYUN_SMS_TEMPLATES: 'not json' }).sms.aliyun).toBeUndefined();
  });
});

describe('configuration: SMS_PROVIDER=tencent', () => {
  it('reads the credentials, SdkAppId, sign, a template per purpose, region and endpoint defaults', () => {
    const { sms } = loadConfig(TENCENT);
    expect(sms.tencent).toEqual({
      secretId: 'AKIDtest',
      secretKey: 'test-secret-key',
      sdkAppId: '1400006666',
      signName: '会议账号',
      region: 'ap-guangzhou',
      endpoint: 'https://sms.tencentcloudapi.com',
      templates: Object.fromEntries(PURPOSES.map((p, i) => [p, { 'zh-CN': `20000${i}`, en: `20000${i}` }])),
    });
    // Template ids are numbers: written as JSON numbers they are taken as well.
    expect(loadConfig({ ...TENCENT, TENCENT_SMS_TEMPLATES: tencentTemplates({ login: 1110, register: { 'zh-CN': 1111, en: '2222' } }) }).sms.tencent?.templates).toMatchObject({
      login: { 'zh-CN': '1110', en: '1110' },
      register: { 'zh-CN': '1111', en: '2222' },
    });
    expect(loadConfig({ ...TENCENT, TENCENT_SMS_REGION: 'ap-singapore' }).sms.tencent?.region).toBe('ap-singapore');
  });

  it('refuses to start without its settings, or with bad ones, naming each variable', () => {
    expect(problemsOf({ SMS_PROVIDER: 'tencent' })).toEqual([
      'TENCENT_SMS_SECRET_ID: required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_SECRET_KEY: required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_SDK_APP_ID: required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_SIGN_NAME: required when SMS_PROVIDER=tencent',
      'TENCENT_SMS_TEMPLATES: required (a JSON object with a template for each of login, register, reset-password, delete-account, phone-change, phone-change-current, phone-change-notice)',
    ]);
    expect(problemsOf({ ...TENCENT, TENCENT_SMS_TEMPLATES: tencentTemplates({ login: 'SMS_1' }) })).toEqual([
      'TENCENT_SMS_TEMPLATES: login is not a template id such as "1110" (or {"zh-CN": …, "en": …})',
    ]);
    expect(problemsOf({ ...TENCENT, TENCENT_SMS_TEMPLATES: '{}' })).toEqual([`TENCENT_SMS_TEMPLATES: no template for ${PURPOSES.join(', ')}`]);
    expect(problemsOf({ ...TENCENT, TENCENT_SMS_SDK_APP_ID: 'app-1' })[0]).toMatch(/^TENCENT_SMS_SDK_APP_ID: must be the SMS application's SdkAppId/);
    expect(problemsOf({ ...TENCENT, TENCENT_SMS_REGION: 'Guangzhou' })[0]).toMatch(/^TENCENT_SMS_REGION: must be a Tencent Cloud region/);
    expect(problemsOf({ ...TENCENT, TENCENT_SMS_ENDPOINT: 'ftp://sms.example' })).toEqual(['TENCENT_SMS_ENDPOINT: must be an http(s) URL']);
  });
});

describe('template providers: pure mappings', () => {
  it('writes mainland numbers without +86 for Alibaba Cloud, others with their country code and no +', () => {
    expect(aliyunPhoneNumber('+8613800138000')).toBe('13800138000');
    expect(aliyunPhoneNumber('+85291234567')).toBe('85291234567');
    expect(aliyunPhoneNumber('+14155552671')).toBe('14155552671');
  });

  it('sorts the providers\' error codes into outcomes', () => {
    expect(['isv.MOBILE_NUMBER_ILLEGAL', 'isv.BUSINESS_LIMIT_CONTROL', 'Throttling.User', 'isv.AMOUNT_NOT_ENOUGH', 'isv.SMS_TEMPLATE_ILLEGAL', 'SignatureDoesNotMatch', 'InvalidAccessKeyId.NotFound', 'isp.SYSTEM_ERROR'].map(aliyunOutcome)).toEqual([
      'rejected_number', 'throttled', 'throttled', 'out_of_balance', 'misconfigured', 'misconfigured', 'misconfigured', 'error',
    ]);
    expect([
      'InvalidParameterValue.IncorrectPhoneNumber', 'UnsupportedOperation.ContainDomesticAndInternationalPhoneNumber', 'LimitExceeded.PhoneNumberDailyLimit',
      'RequestLimitExceeded', 'FailedOperation.InsufficientBalanceInSmsPackage', 'AuthFailure.SignatureFailure', 'FailedOperation.TemplateIncorrectOrUnapproved',
      'InvalidParameterValue.SdkAppIdNotExist', 'InternalError.Timeout',
    ].map(tencentOutcome)).toEqual(['rejected_number', 'rejected_number', 'throttled', 'throttled', 'out_of_balance', 'misconfigured', 'misconfigured', 'misconfigured', 'error']);
  });

  it('tells a failure before the request left from one after it', () => {
    expect(transportOutcome(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }))).toBe('unreachable');
    expect(transportOutcome(new Error('request to http://127.0.0.1:9/ failed, reason: connect ECONNREFUSED 127.0.0.1:9'))).toBe('unreachable');
    expect(transportOutcome(new Error('request to https://sms.example/ failed, reason: getaddrinfo ENOTFOUND sms.example'))).toBe('unreachable');
    expect(transportOutcome(Object.assign(new Error('ReadTimeout(300). POST http://127.0.0.1/ failed.'), { name: 'RequestTimeoutError' }))).toBe('timeout');
    expect(transportOutcome(new Error('network timeout at: http://127.0.0.1:9/'))).toBe('timeout');
    expect(transportOutcome(new Error('request to http://127.0.0.1:9/ failed, reason: socket hang up'))).toBe('connection_lost');
    expect(transportOutcome(new Error('something else'))).toBe('unknown');
  });

  it('gives a code as `code`, a notice as the new number\'s last 4 digits and the UTC time it applies', () => {
    const base = { phone: '+8613800138000', ttlSeconds: 300, locale: 'en' as const };
    expect(templateParams({ ...base, code: '012345', purpose: 'login' as never })).toEqual([['code', '012345']]);
    const appliesAt = new Date('2026-12-01T08:30:59Z');
    expect(templateParams({ ...base, code: '', purpose: 'phone-change-notice', notice: { kind: 'requested', newPhone: '+8613912345678', appliesAt } })).toEqual([
      ['ending', '5678'],
      ['time', '2026-12-01 08:30'],
    ]);
    expect(templateParams({ ...base, code: '', purpose: 'phone-change-notice', notice: { kind: 'changed', newPhone: '+8613912345678' } }, new Date('2026-11-28T09:00:00Z'))).toEqual([
      ['ending', '5678'],
      ['time', '2026-11-28 09:00'],
    ]);
  });
});
