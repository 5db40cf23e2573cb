import { Field, InputType, Int, ObjectType, registerEnumType } from 'type-graphql';
import { UserType } from '../account/account.types.js';
import { CodePurpose, SendCodePurpose } from './code-purpose.js';

registerEnumType(SendCodePurpose, { name: 'CodePurpose', description: 'What a verification code may be used for' });

@ObjectType('SendCodeResult')
export class SendCodeResultType {
  @Field(() => Int, { description: 'Seconds the code stays valid' })
  expiresIn!: number;

  @Field(() => Int, { description: 'Seconds before another code may be requested for this phone' })
  resendAfter!: number;
}

@ObjectType('AuthPayload')
export class AuthPayloadType {
  @Field({ description: 'JWT for the Authorization: Bearer header' })
  accessToken!: string;

  @Field()
  tokenType!: string;

  @Field(() => Int)
  expiresIn!: number;

  @Field({ description: 'Opaque and single use: exchange it with refreshToken' })
  refreshToken!: string;

  @Field(() => Int)
  refreshExpiresIn!: number;

  @Field({ description: 'True only when this call created the account' })
  isNewUser!: boolean;

  @Field(() => UserType)
  user!: UserType;
}

@InputType('SendCodeInput')
export class SendCodeInputType {
  @Field()
  phone!: string;

  @Field(() => SendCodePurpose, { nullable: true, defaultValue: CodePurpose.LOGIN })
  purpose?: SendCodePurpose | null;
}

@InputType('CodeLoginInput')
export class CodeLoginInputType {
  @Field()
  phone!: string;

  @Field()
  code!: string;
}

@InputType('PasswordLoginInput')
export class PasswordLoginInputType {
  @Field()
  phone!: string;

  @Field()
  password!: string;
}

@InputType('RegisterInput')
export class RegisterInputType {
  @Field()
  phone!: string;

  @Field()
  code!: string;

  @Field()
  password!: string;

  @Field(() => String, { nullable: true })
  nickname?: string | null;
}

@InputType('ResetPasswordInput')
export class ResetPasswordInputType {
  @Field()
  phone!: string;

  @Field()
  code!: string;

  @Field()
  newPassword!: string;
}

@InputType('VerifyMfaInput', { description: 'Finishes a sign-in or a step-up that answered MFA_REQUIRED' })
export class VerifyMfaInputType {
  @Field({ description: 'extensions.mfaToken of the MFA_REQUIRED error' })
  mfaToken!: string;

  @Field({ description: 'A TOTP code, or a recovery code (spaces, hyphens and case do not matter)' })
  code!: string;
}
