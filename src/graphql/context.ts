import DataLoader from 'dataloader';
import type { Request } from 'express';
import type { Principal } from '../modules/account/principal.js';
import type { LiveConnection } from '../modules/live/live-hub.js';
import type { UserView } from '../modules/account/user.view.js';
import type { Services } from '../services.js';
import { clientInfo, type ClientInfo } from '../shared/http/request-context.js';

/**
 * What every resolver gets. A class, not an object literal: Apollo copies the context for each
 * operation (`Object.assign` onto an object of the same prototype), which would read an own getter
 * on every request; the getter and the method live on the prototype, so the copy stays cheap and
 * both stay lazy.
 */
export class GraphQLContext {
  private principalPromise: Promise<Principal> | undefined;
  private knownClient: ClientInfo | undefined;
  private userLoader: DataLoader<string, UserView | undefined> | undefined;
  /** What a plugin notes of the request for the HTTP handler (see KnownQueries); Apollo's copy of the context shares it. */
  readonly notes: { knownQuery?: unknown } = {};

  constructor(
    readonly services: Services,
    readonly requestId: string,
    /** The HTTP request; none for an operation on a WebSocket (see live-socket.ts). */
    private readonly req: Request | undefined,
    /**
     * Already authenticated before the body was read (file uploads, see guardedUploads), or when the
     * socket connected; or being authenticated since the request's headers came (the lean path).
     */
    private readonly authenticated: Principal | Promise<Principal> | undefined,
    /** The socket a subscription came on. */
    readonly live?: LiveConnection,
  ) {}

  /** The caller's address and user agent; only sign-in and password changes record them. */
  get client(): ClientInfo {
    return (this.knownClient ??= this.req ? clientInfo(this.req) : { requestId: this.requestId });
  }

  /**
   * Accounts by id, read together: every load of one tick of the operation (a gateway's hundred
   * references to users) is one query. Made on first use; one per request, so nothing is cached
   * across requests.
   */
  loadUser(id: string): Promise<UserView | undefined> {
    this.userLoader ??= new DataLoader(async (ids) => {
      const found = await this.services.accounts.findManyById(ids);
      return ids.map((id) => found.get(id));
    });
    return this.userLoader.load(id);
  }

  /** Whether the request came with a credential to authenticate (an Authorization header). */
  presentsBearer(): boolean {
    return this.authenticated !== undefined || this.req?.get('authorization') !== undefined;
  }

  /** Authenticates on first use and remembers the answer for the rest of the operation. */
  principal(): Promise<Principal> {
    return (this.principalPromise ??= this.authenticated
      ? Promise.resolve(this.authenticated)
      : this.services.authenticator.authenticate(this.req?.get('authorization')));
  }
}
