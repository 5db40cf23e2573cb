/**
 * The ways a sign-in page may offer (PublicConfig's `loginMethods`): public API, sent as they are by
 * REST and as the names of the GraphQL enum LoginMethod (lower case, as they were sent before the
 * enum: a client that compares them keeps working); add, never rename.
 */
export const LoginMethod = { sms_code: 'sms_code', password: 'password' } as const;
export type LoginMethod = (typeof LoginMethod)[keyof typeof LoginMethod];
