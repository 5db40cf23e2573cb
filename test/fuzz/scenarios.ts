// Two scenarios beside the stream of single requests: slow peers holding connections open while
// the rest goes on, and a user's requests racing the deletion of their own account.
import type { GenContext } from './draft.js';
import { goodDraft, type Planned } from './plan.js';
import { send, type Sent, type Service } from './run.js';
import type { Target } from './targets.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Slow peers: a request head dribbled a byte at a time (slowloris), and bodies (JSON, an upload,
 * a GraphQL operation) dribbled and never finished; each gives up after about `ms`.
 */
export async function slowPeers(targets: Target[], g: GenContext, service: Service, ms: number): Promise<Sent[]> {
  const pick = (test: (t: Target) => boolean) => targets.find(test);
  const chosen: [Target | undefined, string, number, number][] = [
    [pick((t) => t.name === 'GET /api/v1/users/me'), 'request head, a byte at a time', 1, 500],
    [pick((t) => t.name === 'POST /api/v1/auth/login'), 'JSON body, a byte at a time', 1, 400],
    [pick((t) => t.transport === 'rest' && !!t.body?.multipart), 'upload, 64 bytes at a time', 64, 300],
    [pick((t) => t.transport === 'graphql' && t.field.name === 'uploadAvatar'), 'GraphQL upload, 64 bytes at a time', 64, 300],
    [pick((t) => t.transport === 'graphql' && t.operation === 'query'), 'GraphQL operation, a byte at a time', 1, 400],
  ];
  const runs = chosen
    .filter((c): c is [Target, string, number, number] => c[0] !== undefined)
    .map(([target, variant, bytes, pauseMs], i) => {
      const draft = goodDraft(target, g);
      draft.delivery = { ending: 'destroy', dribble: { bytes, pauseMs }, afterMs: 0 };
      const planned: Planned = { target, family: 'slow peer', variant, draft };
      // As many pieces as fit in `ms`, and never the whole request (nor, for slowloris, the whole head).
      const cutAt = (raw: Buffer) => Math.min(Math.floor(ms / pauseMs) * bytes, (variant.startsWith('request head') ? raw.indexOf('\r\n\r\n') : raw.length) - 1);
      return send(`slow ${i + 1}`, planned, { ...service, timeoutMs: ms + 5000 }, { cutAt, dribbleMs: ms });
    });
  return Promise.all(runs);
}

/**
 * A new user deletes their account (REST or GraphQL, by turns) while their token is used on every
 * signed-in route and operation at once.
 */
export async function deletionRace(targets: Target[], g: GenContext, service: Service, round: number): Promise<Sent[]> {
  const victim = await service.sessions.signIn();
  const code = await service.sessions.code(victim.phone, 'delete-account');
  const viaGraphQL = round % 2 === 1;
  const deletion = targets.find((t) => (viaGraphQL ? t.name === 'Mutation.deleteAccount' : t.name === 'DELETE /api/v1/users/me'));
  const others = targets.filter((t) => t !== deletion && (t.transport === 'graphql' || t.auth === 'bearer'));
  const planned: Planned[] = others.map((target) => ({ target, family: 'deletion race', variant: 'a request of the user being deleted', draft: goodDraft(target, g) }));
  if (deletion) {
    const draft = goodDraft(deletion, g);
    if (viaGraphQL) draft.json = { query: 'mutation Delete($code: String!) { deleteAccount(code: $code) }', variables: { code } };
    else draft.json = { code };
    planned.push({ target: deletion, family: 'deletion race', variant: 'the deletion', draft });
  }
  return Promise.all(
    planned.map(async (p, i) => {
      await sleep(g.rng.int(0, 20));
      return send(`race ${round + 1}.${i + 1}`, p, service, { as: victim });
    }),
  );
}
