// The test provider's state (interactions, sessions, grants, codes, tokens) in memory, held by the
// harness rather than by one Provider instance: a key rotation builds a new instance, and a flow
// begun before it (a browser on the login page) finishes after it. Also keeps oidc-provider from
// warning about its own development-only adapter.
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

/** The models whose entries carry a grantId and go when their grant is revoked. */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

export function memoryStore(): AdapterFactory {
  const entries = new Map<string, { model: string; payload: AdapterPayload; expiresAt: number }>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) entries.delete(key);
    return entry && entry.expiresAt > Date.now() ? entry.payload : undefined;
  };
  const findBy = (model: string, match: (payload: AdapterPayload) => boolean) => {
    for (const [key, entry] of entries) if (entry.model === model && match(entry.payload)) return live(key);
    return undefined;
  };
  return (model): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        entries.set(key(id), { model, payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity });
      },
      async find(id) {
        return live(key(id));
      },
      async findByUid(uid) {
        return findBy(model, (payload) => payload.uid === uid);
      },
      async findByUserCode(userCode) {
        return findBy(model, (payload) => payload.userCode === userCode);
      },
      async consume(id) {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        entries.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        for (const [entryKey, entry] of entries) {
          if (GRANTABLE.has(entry.model) && entry.payload.grantId === grantId) entries.delete(entryKey);
        }
      },
    };
  };
}
