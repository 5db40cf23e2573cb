import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { AvatarStorage, StoredAvatar } from './avatar-storage.js';
import { isAvatarKey } from './local-storage.js';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Needed by most S3-compatible servers (MinIO, Ceph); AWS works either way. */
  forcePathStyle: boolean;
  prefix: string;
  timeoutMs: number;
}

/** Avatars as objects in an S3-compatible bucket (AWS SDK v3). A PUT is atomic by S3's semantics. */
export class S3AvatarStorage implements AvatarStorage {
  readonly description: string;
  private readonly client: S3Client;

  constructor(private readonly options: S3Options) {
    this.description = `S3 bucket ${options.bucket}${options.endpoint ? ` at ${options.endpoint}` : ''}`;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
      maxAttempts: 2,
      // S3-compatible servers often reject the SDK's default integrity checksums; send them only where S3 requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { requestTimeout: options.timeoutMs, connectionTimeout: options.timeoutMs },
    });
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.objectKey(key),
        Body: bytes,
        ContentType: 'image/webp',
        CacheControl: 'public, max-age=31536000, immutable',
      }),
    );
  }

  async get(key: string): Promise<StoredAvatar | undefined> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
      if (!(object.Body instanceof Readable)) throw new Error('S3 returned no readable body');
      return { body: object.Body, size: object.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) {
        return undefined;
      }
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.objectKey(key) }));
  }

  private objectKey(key: string): string {
    if (!isAvatarKey(key)) throw new Error(`unsafe avatar key ${JSON.stringify(key)}`);
    return `${this.options.prefix}${key}`;
  }
}
