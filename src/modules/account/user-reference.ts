import { AppError, ErrorCode } from '../../shared/errors/app-error.js';
import { toUuid } from '../../shared/ids.js';
import type { Principal } from './principal.js';
import type { UserView } from './user.view.js';

/** What another service's graph may show of an account that is not the caller's: a meeting's host, say. */
const SHOWN_TO_OTHERS = new Set<keyof UserView>(['id', 'nickname', 'avatarUrl']);

/**
 * Another account as `_entities` shows it: its id, nickname and avatar; every other field of it,
 * when selected, is FORBIDDEN (the getter throws, and graphql-js reports the field's error).
 */
function shownToOthers(user: UserView): UserView {
  const view = {} as UserView;
  for (const key of Object.keys(user) as (keyof UserView)[]) {
    if (SHOWN_TO_OTHERS.has(key)) Object.defineProperty(view, key, { value: user[key], enumerable: true });
    else {
      Object.defineProperty(view, key, {
        enumerable: true,
        get: () => {
          throw new AppError(ErrorCode.FORBIDDEN, `Another account's ${key} is not shown; only id, nickname and avatarUrl are`);
        },
      });
    }
  }
  return view;
}

/**
 * The account a gateway's reference (`{ __typename: "User", id }`) names, for a signed-in caller
 * (UNAUTHENTICATED otherwise): the caller's own account whole, another one as shownToOthers, an id
 * of no account (or no id at all) null. `load` reads the references of one request together.
 */
export async function resolveUserReference(
  reference: { id?: unknown },
  principal: Promise<Principal>,
  load: (id: string) => Promise<UserView | undefined>,
): Promise<UserView | null> {
  const caller = await principal;
  const id = typeof reference.id === 'string' ? toUuid(reference.id) : undefined;
  const user = id && (await load(id));
  if (!user) return null;
  return user.id === caller.userId ? user : shownToOthers(user);
}
