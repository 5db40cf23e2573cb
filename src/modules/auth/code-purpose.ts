/** What a verification code may be used for; a code only works for the purpose it was sent for. */
export enum CodePurpose {
  LOGIN = 'login',
  REGISTER = 'register',
  RESET_PASSWORD = 'reset-password',
  DELETE_ACCOUNT = 'delete-account',
}
