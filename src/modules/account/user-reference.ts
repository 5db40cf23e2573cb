import { z } from 'zod';
import { AppError, ErrorCode, msg } from '../../shared/errors/app-error.js';
import { toUuid, uuidField } from '../../shared/ids.js';
import type { Principal } from './principal.js';
import type { UserView } from './user.view.js';

/** What another service's graph may show of an account that is not the caller's: a meeting's host, say. */
const SHOWN_TO_OTHERS = new Set<keyof UserView>(['id', 'nickname', 'avatarUrl']);

/**
 * Another account as `_entities` shows it: its id, nickname and avatar; every other field of it,
 * when selected, is FORBIDDEN (a getter of the prototype throws, and graphql-js reports the field's
 * error). A class: fifty references are fifty small objects of one shape, not fifty objects of
 * property descriptors and closures each.
 */
class ShownToOthers {
  constructor(
    readonly id: UserView['id'],
    readonly nickname: UserView['nickname'],
    readonly avatarUrl: UserView['avatarUrl'],
  ) {}
}

/** The fields of UserView that ShownToOthers refuses, each given its throwing getter once, when first seen. */
const refused = new Set<string>();

function shownToOthers(user: UserView): UserView {
  for (const key in user) {
    if (SHOWN_TO_OTHERS.has(key as keyof UserView) || refused.has(key)) continue;
    refused.add(key);
    Object.defineProperty(ShownToOthers.prototype, key, {
      get: () => {
        throw new AppError(ErrorCode.FORBIDDEN, msg('user.fieldNotShown', { field: key }));
      },
    });
  }
  return new ShownToOthers(user.id, user.nickname, user.avatarUrl) as unknown as UserView;
}

/**
 * The key of a reference to an account (`@key(fields: "id")`): a UUID in any case. A reference
 * without one is refused (VALIDATION_FAILED) before any is resolved.
 */
export const UserKeySchema = z.object({ id: uuidField() });

/**
 * The account a gateway's reference (`{ __typename: "User", id }`, its key accepted by
 * UserKeySchema) names, for a signed-in caller (UNAUTHENTICATED otherwise): the caller's own
 * account whole, another one as shownToOthers, an id of no account null. `load` reads the
 * references of one request together.
 */
export async function resolveUserReference(
  reference: Record<string, unknown>,
  principal: Promise<Principal>,
  load: (id: string) => Promise<UserView | undefined>,
): Promise<UserView | null> {
  const caller = await principal;
  // The id as UserKeySchema makes it canonical: an upper-case spelling names the same account.
  const id = typeof reference.id === 'string' ? toUuid(reference.id) : undefined;
  const user = id && (await load(id));
  if (!user) return null;
  return user.id === caller.userId ? user : shownToOthers(user);
}
