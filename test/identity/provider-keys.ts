// Signing keys of the test OpenID Provider, made with jose: the provider signs its ID tokens with
// them, and tests keep the private halves to forge tokens under the provider's own key (or another
// key under the same kid).
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTHeaderParameters, type JWTPayload } from 'jose';

export type SigningAlg = 'RS256' | 'ES256';

export interface SigningKey {
  kid: string;
  alg: SigningAlg;
  /** For jose's SignJWT. */
  privateKey: CryptoKey;
  /** The private JWK (with kid, alg and use), as the provider is configured with it. */
  jwk: JWK;
}

/** A new key pair for `alg`, under `kid` (a fresh random one unless given). */
export async function generateSigningKey(alg: SigningAlg = 'RS256', kid = `op-${randomBytes(6).toString('hex')}`): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

/**
 * `claims` signed as a JWT with `key`, its header `{ alg, kid }` as the provider writes one (`header`
 * over it): a token the provider never issued, such as a real one's claims with one of them changed.
 */
export function signIdToken(key: SigningKey, claims: JWTPayload, header: Partial<JWTHeaderParameters> = {}): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
}
