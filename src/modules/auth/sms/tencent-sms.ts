import { createRequire } from 'node:module';
import type { TencentSmsConfig } from '../../../config/sms-template-providers.js';
import type { SmsMessage, SmsProvider } from './sms-provider.js';
import { endpointParts, failure, templateOf, templateParams, transportOutcome, type SmsProviderOutcome, type TemplateProviderDeps } from './template-sms.js';

const PROVIDER = 'tencent';

/** CommonJS, read with `require` (as the Alibaba Cloud SDK is); only a service on this provider loads it. */
const require = createRequire(import.meta.url);
type Sdk = typeof import('tencentcloud-sdk-nodejs-sms');
type Client = InstanceType<Sdk['sms']['v20210111']['Client']>;

/** Error codes of SendSms 2021-01-11 (cloud.tencent.com/document/api/382/55981 and 59177), by what they mean here. */
const OUTCOMES: Record<string, SmsProviderOutcome> = {
  'InvalidParameterValue.IncorrectPhoneNumber': 'rejected_number',
  'FailedOperation.PhoneNumberInBlacklist': 'rejected_number',
  'FailedOperation.PhoneNumberOnBlacklist': 'rejected_number',
  'FailedOperation.PhoneNumberParseFail': 'rejected_number',
  'UnsupportedOperation.ContainDomesticAndInternationalPhoneNumber': 'rejected_number',
  'UnsupportedOperation.UnsupportedRegion': 'rejected_number',
  'FailedOperation.InsufficientBalanceInSmsPackage': 'out_of_balance',
  'LimitExceeded.PhoneNumberCountLimit': 'misconfigured',
  'FailedOperation.SignatureIncorrectOrUnapproved': 'misconfigured',
  'FailedOperation.TemplateIncorrectOrUnapproved': 'misconfigured',
  'FailedOperation.TemplateParamSetNotMatchApprovedTemplate': 'misconfigured',
  'FailedOperation.TemplateIdNotExist': 'misconfigured',
  'FailedOperation.MissingSignature': 'misconfigured',
  'FailedOperation.MissingTemplateToModify': 'misconfigured',
  'UnsupportedOperation.ChineseMainlandTemplateToGlobalPhone': 'misconfigured',
  'UnsupportedOperation.GlobalTemplateToChineseMainlandPhone': 'misconfigured',
};

/** Families of codes: quotas and frequency limits; credentials, permissions and malformed requests. */
const THROTTLED = /^(LimitExceeded|RequestLimitExceeded)(\.|$)/;
const MISCONFIGURED = /^(AuthFailure|UnauthorizedOperation|InvalidParameter|InvalidParameterValue|MissingParameter|UnknownParameter|InvalidAction|NoSuchVersion|ActionOffline|IpInBlacklist|IpNotInWhitelist)(\.|$)/;

export function tencentOutcome(code: string): SmsProviderOutcome {
  return OUTCOMES[code] ?? (THROTTLED.test(code) ? 'throttled' : MISCONFIGURED.test(code) ? 'misconfigured' : 'error');
}

/**
 * Tencent Cloud SMS (SendSms 2021-01-11) through the official SDK, signed TC3-HMAC-SHA256; the
 * number in E.164 with its +. One attempt (the SDK never retries) with SMS_TIMEOUT_MS as the
 * request's deadline. Sent only when the answer has no `Error` and the number's `SendStatus` says
 * `Ok`: SendSms answers 200 with a failed status per number.
 */
export class TencentSmsProvider implements SmsProvider {
  readonly name = PROVIDER;
  readonly destination: string;
  private readonly client: Client;

  constructor(
    private readonly config: TencentSmsConfig,
    timeoutMs: number,
    private readonly deps: TemplateProviderDeps,
  ) {
    this.destination = `${config.endpoint} (Tencent Cloud SMS, SdkAppId ${config.sdkAppId}, region ${config.region}, sign ${config.signName})`;
    const { sms } = require('tencentcloud-sdk-nodejs-sms') as Sdk;
    const { protocol, host } = endpointParts(config.endpoint);
    this.client = new sms.v20210111.Client({
      credential: { secretId: config.secretId, secretKey: config.secretKey },
      region: config.region,
      profile: { httpProfile: { endpoint: host, protocol: `${protocol}://`, reqMethod: 'POST', reqTimeout: timeoutMs / 1000 } },
    });
  }

  async send(message: SmsMessage): Promise<void> {
    let answer: Awaited<ReturnType<Client['SendSms']>>;
    try {
      answer = await this.client.SendSms({
        PhoneNumberSet: [message.phone],
        SmsSdkAppId: this.config.sdkAppId,
        SignName: this.config.signName,
        TemplateId: templateOf(this.config.templates, message),
        TemplateParamSet: templateParams(message).map(([, value]) => value),
      });
    } catch (error) {
      // The SDK's error: `code` and `requestId` when the API answered with an Error, `httpCode` for another status, else a network failure.
      const { code, requestId, httpCode } = error as { code?: unknown; requestId?: unknown; httpCode?: unknown };
      if (typeof code === 'string' && code) {
        throw failure(PROVIDER, this.deps, message, { outcome: tencentOutcome(code), providerCode: code, requestId: typeof requestId === 'string' && requestId ? requestId : undefined });
      }
      if (typeof httpCode === 'number') throw failure(PROVIDER, this.deps, message, { outcome: 'error', providerCode: `HTTP ${httpCode}` });
      throw failure(PROVIDER, this.deps, message, { outcome: transportOutcome(error) });
    }
    const status = answer.SendStatusSet?.find((s) => s.PhoneNumber === message.phone) ?? answer.SendStatusSet?.[0];
    if (status?.Code !== 'Ok') {
      throw failure(PROVIDER, this.deps, message, status?.Code ? { outcome: tencentOutcome(status.Code), providerCode: status.Code, requestId: answer.RequestId } : { outcome: 'unknown', requestId: answer.RequestId });
    }
    this.deps.metrics?.smsProviderAnswer(PROVIDER, 'sent');
  }
}
