/** What a verification code may be used for; a code only works for the purpose it was sent for. */
export enum CodePurpose {
  LOGIN = 'login',
  REGISTER = 'register',
  RESET_PASSWORD = 'reset-password',
  DELETE_ACCOUNT = 'delete-account',
  /** To the new number of a phone change; sent and checked by the phone-change module only. */
  PHONE_CHANGE = 'phone-change',
  /** To the current number of a phone change (the account's proof); sent and checked by the phone-change module only. */
  PHONE_CHANGE_CURRENT = 'phone-change-current',
}

/** The purposes send-code (and its GraphQL enum) takes: a phone change's codes go out only through its routes. */
export const SendCodePurpose = {
  LOGIN: CodePurpose.LOGIN,
  REGISTER: CodePurpose.REGISTER,
  RESET_PASSWORD: CodePurpose.RESET_PASSWORD,
  DELETE_ACCOUNT: CodePurpose.DELETE_ACCOUNT,
} as const;
export type SendCodePurpose = (typeof SendCodePurpose)[keyof typeof SendCodePurpose];
