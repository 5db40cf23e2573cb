// Local servers speaking Alibaba Cloud's and Tencent Cloud's SMS APIs (not a test file). Each checks
// the request as the real API does, from the documents and not from the SDKs' code: the signature
// (ACS3-HMAC-SHA256, "V3 request signature"; TC3-HMAC-SHA256, "签名方法 v3") recomputed here with
// node:crypto, the action and version, the sign name, the template and its parameters; and answers
// with the real API's success and error bodies. Failures on demand: an error code, no answer, a
// dropped connection, or nothing listening.
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LocalServer } from '../helpers/local-server.js';

type FakeMode = 'ok' | 'hang' | 'reset';

/** One SendSms the fake accepted (signature, sign, template and parameters right). */
export interface Delivery {
  phone: string;
  signName: string;
  template: string;
  /** The parameters by name (Alibaba Cloud) or in order (Tencent Cloud). */
  params: Record<string, string> | string[];
}

interface Answer {
  status: number;
  body: unknown;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The HTTP side shared by both fakes: modes, recording, stopping and starting on the same port. */
abstract class FakeProvider extends LocalServer {
  mode: FakeMode = 'ok';
  /** Answer the next sends with this error code of the provider (until cleared). */
  failWith?: string;
  /** Every SendSms that passed the checks, oldest first. */
  readonly deliveries: Delivery[] = [];
  /** Every request that reached the handler (a hung one included), and those refused, with the code answered. */
  requests = 0;
  readonly refusals: string[] = [];
  /** The template parameters of every signed request that reached SendSms's checks, as sent. */
  readonly attempted: string[] = [];
  /** Alters each request before it is checked, as a party on the path would (the signature must then fail). */
  tamper?: (url: string, body: Buffer) => { url: string; body: Buffer };
  /** Connections dropped in `reset` mode. */
  resets = 0;

  protected abstract handle(req: IncomingMessage, body: Buffer): Answer;

  protected onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      this.requests += 1;
      if (this.mode === 'reset') {
        this.resets += 1;
        req.socket.destroy();
        return;
      }
      if (this.mode === 'hang') {
        this.hanging.add(res);
        return;
      }
      let received: Buffer = Buffer.concat(chunks);
      if (this.tamper) ({ url: req.url, body: received } = this.tamper(req.url!, received));
      const { status, body } = this.handle(req, received);
      res.writeHead(status, { 'content-type': 'application/json;charset=utf-8' }).end(JSON.stringify(body));
    });
  }

  clear(): void {
    this.deliveries.length = 0;
    this.refusals.length = 0;
    this.attempted.length = 0;
    this.requests = 0;
    this.resets = 0;
    this.mode = 'ok';
    this.failWith = undefined;
    this.tamper = undefined;
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  /** The code (the template's `code`, or its first parameter) of the last delivery to `phone` (in the provider's form). */
  abstract codeTo(phone: string): string;
}

/** Alibaba Cloud's "RFC 3986" percent-encoding of the canonical query string: only A-Z a-z 0-9 - _ . ~ stay. */
function acsEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export interface FakeAliyunOptions {
  accessKeyId: string;
  accessKeySecret: string;
  signName: string;
  /** Template code -> the variables it declares (`${code}`, …). */
  templates: Record<string, string[]>;
}

/**
 * dysmsapi.aliyuncs.com: `SendSms` (RPC style, version 2017-05-25) with the V3 signature. The
 * gateway's refusals are 4xx with `Code` (`InvalidAccessKeyId.NotFound`, `SignatureDoesNotMatch`,
 * `MissingParameter`, `Throttling.User`); SendSms's own are 200 with a `Code` other than `OK`.
 */
export class FakeAliyun extends FakeProvider {
  private readonly nonces = new Set<string>();

  constructor(readonly options: FakeAliyunOptions) {
    super();
  }

  codeTo(phone: string): string {
    const last = this.deliveries.filter((d) => d.phone === phone).at(-1);
    if (!last) throw new Error(`no SMS to ${phone}`);
    return (last.params as Record<string, string>).code!;
  }

  private refuse(status: number, code: string, message: string): Answer {
    this.refusals.push(code);
    return { status, body: { RequestId: randomUUID().toUpperCase(), Message: message, Recommend: 'https://api.aliyun.com/troubleshoot', HostId: 'dysmsapi.aliyuncs.com', Code: code } };
  }

  private business(code: string, message: string): Answer {
    this.refusals.push(code);
    return { status: 200, body: { Message: message, RequestId: randomUUID().toUpperCase(), Code: code } };
  }

  protected handle(req: IncomingMessage, body: Buffer): Answer {
    const h = req.headers;
    const url = new URL(req.url!, 'http://fake');
    if (req.method !== 'POST' || url.pathname !== '/') return this.refuse(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.');
    if (h['x-acs-action'] !== 'SendSms') return this.refuse(404, 'InvalidAction.NotFound', 'Specified api is not found, please check your url and method.');
    if (h['x-acs-version'] !== '2017-05-25') return this.refuse(400, 'InvalidVersion', 'Specified parameter Version is not valid.');
    // The V3 signature: Authorization: ACS3-HMAC-SHA256 Credential=<AccessKeyId>,SignedHeaders=<a;b>,Signature=<hex>
    const auth = /^ACS3-HMAC-SHA256 Credential=([^,]+),SignedHeaders=([^,]+),Signature=([0-9a-f]{64})$/.exec(String(h.authorization ?? ''));
    if (!auth) return this.refuse(400, 'IncompleteSignature', 'The request signature does not conform to Aliyun standards.');
    const [, accessKeyId, signedList, signature] = auth as unknown as [string, string, string, string];
    if (accessKeyId !== this.options.accessKeyId) return this.refuse(404, 'InvalidAccessKeyId.NotFound', 'Specified access key is not found.');
    const date = String(h['x-acs-date'] ?? '');
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(date) || Math.abs(Date.parse(date) - Date.now()) > 15 * 60_000) {
      return this.refuse(400, 'InvalidTimeStamp.Expired', 'Specified time stamp or date value is expired.');
    }
    const nonce = String(h['x-acs-signature-nonce'] ?? '');
    if (!nonce || this.nonces.has(nonce)) return this.refuse(400, 'SignatureNonceUsed', 'Specified signature nonce was used already.');
    // Every common header but Authorization is signed; the payload's hash is the body's.
    const signed = signedList.split(';');
    const mustSign = ['host', 'x-acs-action', 'x-acs-content-sha256', 'x-acs-date', 'x-acs-signature-nonce', 'x-acs-version', ...(h['content-type'] ? ['content-type'] : [])];
    if (mustSign.some((name) => !signed.includes(name)) || [...signed].sort().join(';') !== signedList) {
      return this.refuse(400, 'IncompleteSignature', 'The request signature does not conform to Aliyun standards.');
    }
    const payloadHash = sha256(body);
    if (h['x-acs-content-sha256'] !== payloadHash) return this.refuse(400, 'SignatureDoesNotMatch', 'Specified signature does not match our calculation.');
    const rawQuery = req.url!.includes('?') ? req.url!.slice(req.url!.indexOf('?') + 1) : '';
    const pairs = rawQuery
      .split('&')
      .filter(Boolean)
      .map((pair) => {
        const [key, value = ''] = pair.split('=') as [string, string?];
        const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, '%20'));
        return [acsEncode(decode(key)), acsEncode(decode(value))] as const;
      })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const canonicalQuery = pairs.map(([k, v]) => `${k}=${v}`).join('&');
    const canonicalHeaders = signed.map((name) => `${name}:${String(h[name] ?? '').trim()}\n`).join('');
    const canonicalRequest = ['POST', '/', canonicalQuery, canonicalHeaders, signedList, payloadHash].join('\n');
    const expected = hmac(this.options.accessKeySecret, `ACS3-HMAC-SHA256\n${sha256(canonicalRequest)}`).toString('hex');
    if (!sameHex(signature, expected)) return this.refuse(400, 'SignatureDoesNotMatch', 'Specified signature does not match our calculation.');
    this.nonces.add(nonce);

    // SendSms itself: parameters in the query (RPC style).
    const query = url.searchParams;
    this.attempted.push(query.get('TemplateParam') ?? '');
    for (const name of ['PhoneNumbers', 'SignName', 'TemplateCode']) {
      if (!query.get(name)) return this.refuse(400, `MissingParameter`, `The input parameter "${name}" that is mandatory for processing this request is not supplied.`);
    }
    if (this.failWith) {
      return /^Throttling/.test(this.failWith) ? this.refuse(400, this.failWith, 'Request was denied due to user flow control.') : this.business(this.failWith, 'refused on demand');
    }
    const phone = query.get('PhoneNumbers')!;
    // Mainland numbers: 11 digits, no country code; others: country code and number, no +.
    if (!/^(1\d{10}|(?!86)[1-9]\d{7,14})$/.test(phone)) return this.business('isv.MOBILE_NUMBER_ILLEGAL', '非法手机号');
    const signName = query.get('SignName')!;
    if (signName !== this.options.signName) return this.business('isv.SMS_SIGNATURE_ILLEGAL', '该账号下找不到对应签名');
    const template = query.get('TemplateCode')!;
    const variables = this.options.templates[template];
    if (!variables) return this.business('isv.SMS_TEMPLATE_ILLEGAL', '该账号下找不到对应模板');
    let params: Record<string, unknown>;
    try {
      params = JSON.parse(query.get('TemplateParam') ?? '{}');
      if (typeof params !== 'object' || params === null || Array.isArray(params)) throw new Error('not an object');
    } catch {
      return this.business('isv.INVALID_JSON_PARAM', 'JSON参数不合法，只接受字符串值');
    }
    if (Object.values(params).some((v) => typeof v !== 'string')) return this.business('isv.INVALID_JSON_PARAM', 'JSON参数不合法，只接受字符串值');
    if (variables.some((v) => !(v in params))) return this.business('isv.TEMPLATE_MISSING_PARAMETERS', '模板变量缺少对应参数值');
    if (Object.keys(params).some((k) => !variables.includes(k))) return this.business('isv.TEMPLATE_PARAMS_ILLEGAL', '模板变量里包含非法关键字');
    this.deliveries.push({ phone, signName, template, params: params as Record<string, string> });
    return { status: 200, body: { Message: 'OK', RequestId: randomUUID().toUpperCase(), Code: 'OK', BizId: `${Date.now()}^0` } };
  }
}

export interface FakeTencentOptions {
  secretId: string;
  secretKey: string;
  sdkAppId: string;
  signName: string;
  region: string;
  /** Template id -> how many parameters it declares ({1}, {2}, …). */
  templates: Record<string, number>;
}

/**
 * sms.tencentcloudapi.com: `SendSms` (version 2021-01-11) with the TC3-HMAC-SHA256 signature. Every
 * answer is 200: `Response.Error` for a refused request, and for a sent one `SendStatusSet`, whose
 * per-number `Code` may still say it failed.
 */
export class FakeTencent extends FakeProvider {
  /** Answer `failWith` as the number's SendStatus (a 200 with SendStatusSet) rather than as the request's Error. */
  failInStatus = false;

  constructor(readonly options: FakeTencentOptions) {
    super();
  }

  override clear(): void {
    super.clear();
    this.failInStatus = false;
  }

  codeTo(phone: string): string {
    const last = this.deliveries.filter((d) => d.phone === phone).at(-1);
    if (!last) throw new Error(`no SMS to ${phone}`);
    return (last.params as string[])[0]!;
  }

  private error(code: string, message: string): Answer {
    this.refusals.push(code);
    return { status: 200, body: { Response: { Error: { Code: code, Message: message }, RequestId: randomUUID() } } };
  }

  protected handle(req: IncomingMessage, body: Buffer): Answer {
    const h = req.headers;
    if (req.method !== 'POST' || req.url !== '/') return this.error('InvalidAction', 'The action requested was invalid.');
    if (h['x-tc-action'] !== 'SendSms') return this.error('InvalidAction', 'The action requested was invalid.');
    if (h['x-tc-version'] !== '2021-01-11') return this.error('NoSuchVersion', 'The API version does not exist.');
    if (h['x-tc-region'] !== this.options.region) return this.error('InvalidParameterValue', 'The region is not served.');
    const auth = /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/([^/]+)\/tc3_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(h.authorization ?? ''));
    if (!auth) return this.error('AuthFailure.InvalidAuthorization', 'The Authorization header is not in the TC3-HMAC-SHA256 form.');
    const [, secretId, date, service, signedList, signature] = auth as unknown as [string, string, string, string, string, string];
    if (secretId !== this.options.secretId) return this.error('AuthFailure.SecretIdNotFound', 'The SecretId is not found.');
    const timestamp = Number(h['x-tc-timestamp']);
    if (!Number.isInteger(timestamp) || Math.abs(timestamp * 1000 - Date.now()) > 5 * 60_000) return this.error('AuthFailure.SignatureExpire', 'The signature expired.');
    if (new Date(timestamp * 1000).toISOString().slice(0, 10) !== date) return this.error('AuthFailure.SignatureFailure', 'The credential date is not the timestamp\'s UTC date.');
    // The service is the first label of the endpoint's host name ("sms" for sms.tencentcloudapi.com).
    const hostName = String(h.host ?? '').replace(/:\d+$/, '');
    if (service !== hostName.split('.')[0]) return this.error('AuthFailure.SignatureFailure', 'The credential scope names another service.');
    const signed = signedList.split(';');
    if (!signed.includes('content-type') || !signed.includes('host') || [...signed].sort().join(';') !== signedList) {
      return this.error('AuthFailure.SignatureFailure', 'SignedHeaders must list content-type and host, sorted.');
    }
    // Header names and values in lower case, trimmed. The host signed is the host name: Tencent Cloud's
    // endpoints have no port, and the SDK signs the name alone when the endpoint has one (as here).
    const value = (name: string) => (name === 'host' ? hostName : String(h[name] ?? '')).trim().toLowerCase();
    const canonicalHeaders = signed.map((name) => `${name}:${value(name)}\n`).join('');
    const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedList, sha256(body)].join('\n');
    const stringToSign = ['TC3-HMAC-SHA256', String(timestamp), `${date}/${service}/tc3_request`, sha256(canonicalRequest)].join('\n');
    const kSigning = hmac(hmac(hmac(`TC3${this.options.secretKey}`, date), service), 'tc3_request');
    if (!sameHex(signature, hmac(kSigning, stringToSign).toString('hex'))) {
      return this.error('AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.');
    }
    if (!/^application\/json/.test(String(h['content-type']))) return this.error('FailedOperation.FailResolvePacket', 'The request body could not be parsed.');

    let request: { PhoneNumberSet?: unknown; SmsSdkAppId?: unknown; SignName?: unknown; TemplateId?: unknown; TemplateParamSet?: unknown };
    try {
      request = JSON.parse(body.toString('utf8'));
    } catch {
      return this.error('FailedOperation.FailResolvePacket', 'The request body could not be parsed.');
    }
    this.attempted.push(JSON.stringify(request.TemplateParamSet ?? null));
    const phones = request.PhoneNumberSet;
    if (!Array.isArray(phones) || phones.length !== 1 || typeof phones[0] !== 'string') return this.error('MissingParameter', 'PhoneNumberSet is required.');
    if (typeof request.SmsSdkAppId !== 'string' || typeof request.TemplateId !== 'string') return this.error('MissingParameter', 'SmsSdkAppId and TemplateId are required.');
    if (request.SmsSdkAppId !== this.options.sdkAppId) return this.error('InvalidParameterValue.SdkAppIdNotExist', 'The SdkAppId does not exist.');
    if (this.failWith && !this.failInStatus) return this.error(this.failWith, 'refused on demand');
    const phone = phones[0];
    if (!/^\+[1-9]\d{7,14}$/.test(phone)) return this.error('InvalidParameterValue.IncorrectPhoneNumber', 'The phone number is not in E.164 format.');
    if (request.SignName !== this.options.signName) return this.error('FailedOperation.SignatureIncorrectOrUnapproved', 'The signature is not approved or its format is wrong.');
    const count = this.options.templates[request.TemplateId];
    if (count === undefined) return this.error('FailedOperation.TemplateIncorrectOrUnapproved', 'The template is not approved or its content does not match.');
    const params = request.TemplateParamSet ?? [];
    if (!Array.isArray(params) || params.some((p) => typeof p !== 'string') || params.length !== count) {
      return this.error('FailedOperation.TemplateParamSetNotMatchApprovedTemplate', 'The parameters do not match the approved template.');
    }
    const status = (code: string, message: string) => ({ SerialNo: `5000:${randomUUID()}`, PhoneNumber: phone, Fee: code === 'Ok' ? 1 : 0, SessionContext: '', Code: code, Message: message, IsoCode: phone.startsWith('+86') ? 'CN' : 'US' });
    if (this.failWith) {
      this.refusals.push(this.failWith);
      return { status: 200, body: { Response: { SendStatusSet: [status(this.failWith, 'refused on demand')], RequestId: randomUUID() } } };
    }
    this.deliveries.push({ phone, signName: request.SignName, template: request.TemplateId, params: params as string[] });
    return { status: 200, body: { Response: { SendStatusSet: [status('Ok', 'send success')], RequestId: randomUUID() } } };
  }
}
