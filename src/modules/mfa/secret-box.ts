import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals second-factor secrets at rest with AES-256-GCM: a random 96-bit IV per secret, the
 * account's id as additional authenticated data (a row copied to another account does not open),
 * and a version prefix so that another scheme or key can come later. A database dump alone opens
 * nothing: the key lives in the configuration.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('The MFA encryption key must be 32 bytes');
  }

  seal(secret: Uint8Array, userId: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(userId, 'utf8'));
    const sealed = Buffer.concat([iv, cipher.update(secret), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${sealed.toString('base64url')}`;
  }

  /** The secret, or undefined when the text was not sealed by this key for this account. */
  open(sealed: string, userId: string): Uint8Array | undefined {
    const [version, body] = sealed.split('.');
    if (version !== VERSION || !body) return undefined;
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(userId, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]));
    } catch {
      return undefined;
    }
  }
}
