import { parseTemplateTable, type TemplateTable } from './sms-template-ids.js';

/** Alibaba Cloud SMS (`SMS_PROVIDER=aliyun`). */
export interface AliyunSmsConfig {
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  /** Template code per purpose and locale (`SMS_123456789`). */
  templates: TemplateTable;
  endpoint: string;
}

/** Tencent Cloud SMS (`SMS_PROVIDER=tencent`). */
export interface TencentSmsConfig {
  secretId: string;
  secretKey: string;
  sdkAppId: string;
  signName: string;
  /** Template id per purpose and locale (`1110`). */
  templates: TemplateTable;
  region: string;
  endpoint: string;
}

interface TemplateProvidersEnvironment {
  ALIYUN_SMS_ACCESS_KEY_ID?: string;
  ALIYUN_SMS_ACCESS_KEY_SECRET?: string;
  ALIYUN_SMS_SIGN_NAME?: string;
  ALIYUN_SMS_TEMPLATES?: string;
  ALIYUN_SMS_ENDPOINT: string;
  TENCENT_SMS_SECRET_ID?: string;
  TENCENT_SMS_SECRET_KEY?: string;
  TENCENT_SMS_SDK_APP_ID?: string;
  TENCENT_SMS_SIGN_NAME?: string;
  TENCENT_SMS_TEMPLATES?: string;
  TENCENT_SMS_REGION: string;
  TENCENT_SMS_ENDPOINT: string;
}

/** A required value, trimmed; a missing or blank one is a problem naming the variable. */
function required(e: TemplateProvidersEnvironment, key: keyof TemplateProvidersEnvironment, provider: string, problems: string[]): string {
  const value = e[key]?.trim();
  if (!value) problems.push(`${key}: required when SMS_PROVIDER=${provider}`);
  return value ?? '';
}

/** The Alibaba Cloud provider's settings; undefined (and `problems` filled) when they cannot work. */
export function parseAliyunSms(e: TemplateProvidersEnvironment, problems: string[]): AliyunSmsConfig | undefined {
  const before = problems.length;
  const accessKeyId = required(e, 'ALIYUN_SMS_ACCESS_KEY_ID', 'aliyun', problems);
  const accessKeySecret = required(e, 'ALIYUN_SMS_ACCESS_KEY_SECRET', 'aliyun', problems);
  const signName = required(e, 'ALIYUN_SMS_SIGN_NAME', 'aliyun', problems);
  const templates = parseTemplateTable('ALIYUN_SMS_TEMPLATES', e.ALIYUN_SMS_TEMPLATES, { pattern: /^SMS_\d+$/, example: 'SMS_123456789' }, problems);
  if (problems.length > before || !templates) return undefined;
  return { accessKeyId, accessKeySecret, signName, templates, endpoint: e.ALIYUN_SMS_ENDPOINT };
}

/** The Tencent Cloud provider's settings; undefined (and `problems` filled) when they cannot work. */
export function parseTencentSms(e: TemplateProvidersEnvironment, problems: string[]): TencentSmsConfig | undefined {
  const before = problems.length;
  const secretId = required(e, 'TENCENT_SMS_SECRET_ID', 'tencent', problems);
  const secretKey = required(e, 'TENCENT_SMS_SECRET_KEY', 'tencent', problems);
  const sdkAppId = required(e, 'TENCENT_SMS_SDK_APP_ID', 'tencent', problems);
  const signName = required(e, 'TENCENT_SMS_SIGN_NAME', 'tencent', problems);
  const templates = parseTemplateTable('TENCENT_SMS_TEMPLATES', e.TENCENT_SMS_TEMPLATES, { pattern: /^\d+$/, example: '1110', numbers: true }, problems);
  if (problems.length > before || !templates) return undefined;
  return { secretId, secretKey, sdkAppId, signName, templates, region: e.TENCENT_SMS_REGION, endpoint: e.TENCENT_SMS_ENDPOINT };
}
