// The page a frontend on another site would be, bundled by test/client/support.ts: Apollo Client 4
// with the client module's store and link, driven from the tests through window.harness.
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { apiErrorOf, authLink, graphqlExchange, indexedDbStorage, memoryTokenStore, sharedTokenStore, signInStep, type SignInStep, type TokenChange, type Tokens, type TokenStore } from '../../../src/client/index.js';

let store: TokenStore;
let client: ApolloClient;
const changes: TokenChange[] = [];
type Issued = { accessToken: string; refreshToken: string; expiresIn: number };

const ME = gql`query Me { me { id } }`;
const LOGIN = gql`mutation Login($phone: String!, $code: String!) { login(input: { phone: $phone, code: $code }) { accessToken refreshToken expiresIn } }`;
const VERIFY = gql`mutation Verify($mfaToken: String!, $code: String!) { verifyMfa(input: { mfaToken: $mfaToken, code: $code }) { accessToken refreshToken expiresIn } }`;

const harness = {
  /** A client of `api` (the service's origin) whose tokens are in a store of this page only, or shared by the origin's tabs. */
  /** Keeps tokens where the shared store of this origin finds them, as an earlier visit would have. */
  seed: (tokens: Tokens) => indexedDbStorage('meeting-accounts').write(tokens),
  async setup(api: string, shared: boolean, tokens?: Tokens): Promise<void> {
    store = shared ? sharedTokenStore() : memoryTokenStore();
    await store.ready;
    if (tokens && !shared) store.signedIn({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, expiresIn: 0 });
    store.subscribe((change) => changes.push(change));
    const uri = `${api}/graphql`;
    client = new ApolloClient({ link: authLink({ store, exchange: graphqlExchange({ uri }) }).concat(new HttpLink({ uri })), cache: new InMemoryCache() });
  },
  async me(): Promise<{ id?: string; code?: string; reason?: string }> {
    try {
      const { data } = await client.query<{ me: { id: string } }>({ query: ME, fetchPolicy: 'network-only' });
      return { id: data?.me.id };
    } catch (error) {
      const refusal = apiErrorOf(error);
      return { code: refusal?.code ?? String(error), reason: (refusal?.extensions as { reason?: string } | undefined)?.reason };
    }
  },
  current: () => store.current(),
  changes: () => changes,
  /** A sign-in by SMS code, as its step (the payload of a signed-in one left out). */
  async signIn(phone: string, code: string): Promise<Partial<SignInStep>> {
    const step = await signInStep(async () => (await client.mutate<{ login: Issued }>({ mutation: LOGIN, variables: { phone, code }, context: { anonymous: true } })).data!.login, store);
    return step.step === 'signedIn' ? { step: step.step } : step;
  },
  async verify(mfaToken: string, code: string): Promise<Partial<SignInStep>> {
    const step = await signInStep(async () => (await client.mutate<{ verifyMfa: Issued }>({ mutation: VERIFY, variables: { mfaToken, code }, context: { anonymous: true } })).data!.verifyMfa, store);
    return step.step === 'signedIn' ? { step: step.step } : step;
  },
};

(window as unknown as { harness: typeof harness }).harness = harness;
