// A software WebAuthn authenticator for tests and benchmarks that need no browser: an ES256 key from
// node:crypto, clientDataJSON, authenticatorData with its flags and counter, a `none` attestation
// (CBOR through @simplewebauthn/server's own codec) and assertion signatures, as JSON the way
// PublicKeyCredential.toJSON() writes it.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

/** authenticatorData flags (WebAuthn 6.1). */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

export interface CeremonyOverrides {
  /** The page's origin in clientDataJSON; the authenticator's own by default. */
  origin?: string;
  /** The challenge signed; the options' by default. */
  challenge?: string;
  /** The clientDataJSON type; `webauthn.create` / `webauthn.get` by default. */
  type?: string;
  /** The RP ID whose hash starts authenticatorData. */
  rpId?: string;
  /** The signature counter to report; by default the authenticator's, moved forward by one. */
  counter?: number;
  /** Sign with user verification (default true). */
  userVerified?: boolean;
}

export interface RegistrationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  authenticatorAttachment: 'platform';
  clientExtensionResults: Record<string, unknown>;
}

export interface AuthenticationResponseJson {
  id: string;
  rawId: string;
  type: 'public-key';
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
  authenticatorAttachment: 'platform';
  clientExtensionResults: Record<string, unknown>;
}

/** One discoverable credential, its key and counter, for one RP. */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  /** The signature counter the next ceremony moves forward (0: an authenticator that keeps none, with `counting` false). */
  counter: number;
  private readonly privateKey: KeyObject;
  private readonly coseKey: Uint8Array;
  private userHandle: string | undefined;

  constructor(
    readonly origin: string,
    readonly rpId = 'localhost',
    private readonly counting = true,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    this.counter = 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** What navigator.credentials.create() would give for these creation options. */
  register(options: { challenge: string; user: { id: string } }, overrides: CeremonyOverrides = {}): RegistrationResponseJson {
    this.userHandle = options.user.id;
    const clientDataJSON = this.clientData(overrides.type ?? 'webauthn.create', overrides.challenge ?? options.challenge, overrides.origin);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.coseKey]);
    const authData = Buffer.concat([this.authDataHead(overrides, AT, overrides.counter ?? this.counter), attested]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  /** What navigator.credentials.get() would give for these request options; moves the counter forward. */
  assert(options: { challenge: string }, overrides: CeremonyOverrides = {}): AuthenticationResponseJson {
    if (this.counting && overrides.counter === undefined) this.counter += 1;
    const clientDataJSON = this.clientData(overrides.type ?? 'webauthn.get', overrides.challenge ?? options.challenge, overrides.origin);
    const authData = this.authDataHead(overrides, 0, overrides.counter ?? this.counter);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(this.userHandle && { userHandle: this.userHandle }),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }

  private clientData(type: string, challenge: string, origin = this.origin): string {
    return JSON.stringify({ type, challenge, origin, crossOrigin: false });
  }

  private authDataHead(overrides: CeremonyOverrides, extraFlags: number, counter: number): Buffer {
    const flags = UP | (overrides.userVerified === false ? 0 : UV) | BE | BS | extraFlags;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(overrides.rpId ?? this.rpId), Buffer.from([flags]), count]);
  }
}
