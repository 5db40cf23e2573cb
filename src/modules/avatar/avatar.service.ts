import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import type { Logger } from '../../shared/logger.js';
import type { Database } from '../../db/database.js';
import type { ClientInfo } from '../../shared/http/request-context.js';
import type { UserView } from '../account/user.view.js';
import type { Principal } from '../account/principal.js';
import { SecurityEventType } from '../security-event/security-event-type.js';
import type { SecurityEventService } from '../security-event/security-event.service.js';
import type { AccountService } from '../account/account.service.js';
import { encodeAvatar } from './avatar-image.js';
import type { AvatarStorage, StoredAvatar } from './avatar-storage.js';
import { isAvatarKey } from './local-storage.js';
import type { StagedUpload, UploadStaging } from './upload-staging.js';

/** Avatar use cases: receive, check, re-encode, store, swap, serve. */
export class AvatarService {
  constructor(
    private readonly db: Database,
    private readonly accounts: AccountService,
    private readonly events: SecurityEventService,
    private readonly storage: AvatarStorage,
    private readonly staging: UploadStaging,
    private readonly logger: Logger,
  ) {}

  /**
   * Streams an upload to a temporary file within the size limit (PAYLOAD_TOO_LARGE past it;
   * VALIDATION_FAILED when the client's stream fails: cut off, aborted).
   */
  stage(source: Readable): Promise<StagedUpload> {
    return this.staging.stage(source);
  }

  /** Opens, receives and applies one upload: the whole use case for transports that hand over a file to open. */
  async upload(principal: Principal, open: () => Readable | Promise<Readable>, client: ClientInfo): Promise<UserView> {
    return this.replace(principal, await this.staging.open(open), client);
  }

  /**
   * Re-encodes the staged file and makes it the user's avatar. The new file is stored before the
   * row points at it and the old file is deleted only after, so a failure at any step leaves the
   * previous avatar in place. The staged file is always removed.
   */
  async replace(principal: Principal, staged: StagedUpload, client: ClientInfo): Promise<UserView> {
    const { userId } = principal;
    let encoded: Buffer;
    try {
      encoded = await encodeAvatar(staged.path);
    } finally {
      await staged.discard();
    }
    // Content-addressed per user: a new image gets a new URL, the same image keeps its URL.
    const key = `${createHash('sha256').update(userId).update(encoded).digest('hex').slice(0, 32)}.webp`;
    await this.storage.put(key, encoded);
    let replaced: { user: UserView; previousKey: string | null };
    try {
      replaced = await this.db.transaction(async () => {
        const swapped = await this.accounts.replaceAvatarKey(userId, key);
        await this.events.recordOwn(SecurityEventType.AVATAR_CHANGED, principal, client);
        return swapped;
      });
    } catch (error) {
      // The account is gone or the database failed: the new file is not anyone's avatar.
      await this.storage.delete(key).catch(() => undefined);
      throw error;
    }
    const { previousKey } = replaced;
    if (previousKey && previousKey !== key) {
      await this.storage.delete(previousKey).catch((error: unknown) => {
        this.logger.warn({ err: error, key: previousKey }, 'could not delete the previous avatar');
      });
    }
    return replaced.user;
  }

  /** The stored avatar, or NOT_FOUND for unknown and malformed keys alike. */
  async open(key: string): Promise<StoredAvatar> {
    const avatar = isAvatarKey(key) ? await this.storage.get(key) : undefined;
    if (!avatar) throw new AppError(ErrorCode.NOT_FOUND, msg('avatar.notFound'));
    return avatar;
  }
}
