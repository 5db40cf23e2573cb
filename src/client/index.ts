// The service's client module for frontends (API.md 10.5): a token store (one page's memory, or
// shared by the tabs of an origin), an Apollo Link that signs requests and renews tokens, the sign-in
// steps as a discriminated union, and the API's refusals typed by ErrorCode. Apollo Client 4 and rxjs
// are peer dependencies: the frontend brings its own.
export { apiErrorIn, apiErrorOf, isApiError, type ApiError, type ErrorCode, type ExtensionsByCode, type ExtensionsOf, type MfaMethod, type PendingIdentity, type SecondProofMethod, type UnauthenticatedReason } from './errors.js';
export { graphqlExchange, type GraphQLExchangeOptions } from './exchange.js';
export { authLink, type AuthLinkOptions } from './link.js';
export { memoryTokenStore } from './memory-store.js';
export { indexedDbStorage, sharedTokenStore, type SharedStorage, type SharedStoreOptions, type SharedTokenStore } from './shared-store.js';
export { signInStep, type SignInStep } from './sign-in.js';
export type { EndReason, Exchange, IssuedTokens, TokenChange, Tokens, TokenStore } from './tokens.js';
