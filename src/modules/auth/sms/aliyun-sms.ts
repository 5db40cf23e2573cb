import { createRequire } from 'node:module';
import type { AliyunSmsConfig } from '../../../config/sms-template-providers.js';
import type { SmsMessage, SmsProvider } from './sms-provider.js';
import { endpointParts, failure, templateOf, templateParams, transportOutcome, type SmsProviderOutcome, type TemplateProviderDeps } from './template-sms.js';

const PROVIDER = 'aliyun';

/**
 * The SDK is CommonJS and read with `require`: Node's `import` hands its `exports` over as the
 * default export, where the types expect the class. Only a service on this provider loads it.
 */
const require = createRequire(import.meta.url);
type Sdk = typeof import('@alicloud/dysmsapi20170525');
type Core = typeof import('@alicloud/openapi-core');

/** Error codes of SendSms (help.aliyun.com "API错误码") and of the API gateway, by what they mean here. */
const OUTCOMES: Record<string, SmsProviderOutcome> = {
  'isv.MOBILE_NUMBER_ILLEGAL': 'rejected_number',
  'isv.BLACK_KEY_CONTROL_LIMIT': 'rejected_number',
  'isv.BUSINESS_LIMIT_CONTROL': 'throttled',
  'isv.DAY_LIMIT_CONTROL': 'throttled',
  'isv.MONTH_LIMIT_CONTROL': 'throttled',
  'isv.AMOUNT_NOT_ENOUGH': 'out_of_balance',
  'isv.OUT_OF_SERVICE': 'out_of_balance',
  'isv.SMS_TEMPLATE_ILLEGAL': 'misconfigured',
  'isv.SMS_SIGNATURE_ILLEGAL': 'misconfigured',
  'isv.SMS_SIGN_ILLEGAL': 'misconfigured',
  'isv.SIGN_STATE_ILLEGAL': 'misconfigured',
  'isv.SMS_SIGNATURE_SCENE_ILLEGAL': 'misconfigured',
  'isv.TEMPLATE_MISSING_PARAMETERS': 'misconfigured',
  'isv.TEMPLATE_PARAMS_ILLEGAL': 'misconfigured',
  'isv.INVALID_JSON_PARAM': 'misconfigured',
  'isv.INVALID_PARAMETERS': 'misconfigured',
  'isv.PARAM_LENGTH_LIMIT': 'misconfigured',
  'isv.DOMESTIC_NUMBER_NOT_SUPPORTED': 'misconfigured',
  'isv.ACCOUNT_NOT_EXISTS': 'misconfigured',
  'isv.ACCOUNT_ABNORMAL': 'misconfigured',
  'isv.PRODUCT_UN_SUBSCRIPT': 'misconfigured',
  'isv.PRODUCT_UNSUBSCRIBE': 'misconfigured',
  'isv.DENY_IP_RANGE': 'misconfigured',
  'isp.RAM_PERMISSION_DENY': 'misconfigured',
};

/** The gateway's refusals of the request itself: a wrong key or secret, a signature, a permission. */
const MISCONFIGURED = /^(InvalidAccessKeyId|SignatureDoesNotMatch|IncompleteSignature|InvalidSignature|Forbidden|MissingParameter|InvalidParameter|InvalidAction|InvalidVersion)/;

export function aliyunOutcome(code: string): SmsProviderOutcome {
  return OUTCOMES[code] ?? (/^Throttling/.test(code) ? 'throttled' : MISCONFIGURED.test(code) ? 'misconfigured' : 'error');
}

/**
 * Alibaba Cloud's SendSms: a mainland number without its +86, any other with its country code and
 * no +. An approved international template is needed for numbers outside the mainland.
 */
export function aliyunPhoneNumber(e164: string): string {
  return e164.startsWith('+86') ? e164.slice(3) : e164.slice(1);
}

/**
 * Alibaba Cloud SMS (dysmsapi 2017-05-25 SendSms) through the official SDK, signed ACS3-HMAC-SHA256.
 * One attempt (the SDK retries only with retry options, none are given) within SMS_TIMEOUT_MS for
 * the connection and again for the answer. An answer whose `Code` is not `OK` sent nothing.
 */
export class AliyunSmsProvider implements SmsProvider {
  readonly name = PROVIDER;
  readonly destination: string;
  private readonly sdk: Sdk;
  private readonly client: InstanceType<Sdk['default']>;

  constructor(
    private readonly config: AliyunSmsConfig,
    timeoutMs: number,
    private readonly deps: TemplateProviderDeps,
  ) {
    this.destination = `${config.endpoint} (Alibaba Cloud SMS, AccessKey ${config.accessKeyId}, sign ${config.signName})`;
    this.sdk = require('@alicloud/dysmsapi20170525') as Sdk;
    const core = require('@alicloud/openapi-core') as Core;
    const { protocol, host } = endpointParts(config.endpoint);
    this.client = new this.sdk.default(
      new core.$OpenApiUtil.Config({
        accessKeyId: config.accessKeyId,
        accessKeySecret: config.accessKeySecret,
        endpoint: host,
        protocol,
        connectTimeout: timeoutMs,
        readTimeout: timeoutMs,
      }),
    );
  }

  async send(message: SmsMessage): Promise<void> {
    const request = new this.sdk.SendSmsRequest({
      phoneNumbers: aliyunPhoneNumber(message.phone),
      signName: this.config.signName,
      templateCode: templateOf(this.config.templates, message),
      templateParam: JSON.stringify(Object.fromEntries(templateParams(message))),
    });
    let code: string | undefined;
    let requestId: string | undefined;
    try {
      const response = await this.client.sendSms(request);
      code = response.body?.code;
      requestId = response.body?.requestId;
    } catch (error) {
      // An error status: ClientError, ServerError or ThrottlingError with the answer's Code and RequestId.
      const answered = error as { code?: unknown; requestId?: unknown; statusCode?: unknown };
      if (typeof answered.statusCode === 'number' && typeof answered.code === 'string' && answered.code !== 'undefined') {
        throw failure(PROVIDER, this.deps, message, { outcome: aliyunOutcome(answered.code), providerCode: answered.code, requestId: typeof answered.requestId === 'string' && answered.requestId !== 'undefined' ? answered.requestId : undefined });
      }
      const outcome = transportOutcome(error);
      throw failure(PROVIDER, this.deps, message, { outcome, providerCode: typeof answered.code === 'string' ? answered.code : undefined });
    }
    if (code !== 'OK') {
      throw failure(PROVIDER, this.deps, message, code ? { outcome: aliyunOutcome(code), providerCode: code, requestId } : { outcome: 'unknown', requestId });
    }
    this.deps.metrics?.smsProviderAnswer(PROVIDER, 'sent');
  }
}
