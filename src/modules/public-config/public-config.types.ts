import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { LoginMethod } from './login-method.js';

registerEnumType(LoginMethod, {
  name: 'LoginMethod',
  description: 'A way a sign-in page may offer (the values REST sends too)',
  valuesConfig: {
    sms_code: { description: 'A code sent by SMS to the phone: sendCode, then login' },
    password: { description: 'The phone number and the password: loginWithPassword' },
  },
});

@ObjectType('AboutInfo')
export class AboutInfoType {
  @Field() appName!: string;
  @Field() version!: string;
  @Field() description!: string;
  @Field() website!: string;
  @Field() termsUrl!: string;
  @Field() privacyUrl!: string;
  @Field() contactEmail!: string;
}

@ObjectType('Faq')
export class FaqType {
  @Field() question!: string;
  @Field() answer!: string;
}

@ObjectType('HelpCenter')
export class HelpCenterType {
  @Field() url!: string;
  @Field() supportEmail!: string;
  @Field() supportPhone!: string;
  @Field(() => [FaqType]) faqs!: FaqType[];
}

@ObjectType('AuthConfig')
export class AuthConfigType {
  @Field(() => Int) codeLength!: number;
  @Field(() => Int) codeTtlSeconds!: number;
  @Field(() => Int) resendIntervalSeconds!: number;
  @Field(() => Int) passwordMinLength!: number;
  @Field(() => Int) passwordMaxBytes!: number;
  @Field(() => [LoginMethod], { description: 'The ways a sign-in page may offer, in order' }) loginMethods!: LoginMethod[];
}

@ObjectType('AvatarConfig')
export class AvatarConfigType {
  @Field(() => Int) maxBytes!: number;
  @Field(() => [String]) acceptedTypes!: string[];
}

@ObjectType('IdentityProvider', { description: 'An external OpenID Connect provider this service signs in with' })
export class IdentityProviderType {
  @Field(() => ID, { description: 'Its id in the routes and mutations: google, apple, microsoft, corp-sso' }) id!: string;
  @Field({ description: 'What its sign-in button says' }) name!: string;
}

@ObjectType('PublicConfig')
export class PublicConfigType {
  @Field() registrationEnabled!: boolean;
  @Field(() => AboutInfoType) about!: AboutInfoType;
  @Field(() => HelpCenterType) helpCenter!: HelpCenterType;
  @Field(() => AuthConfigType) auth!: AuthConfigType;
  @Field(() => AvatarConfigType) avatar!: AvatarConfigType;
  @Field(() => [IdentityProviderType], { description: 'The external providers to offer, in order; empty when none is configured' })
  identityProviders!: IdentityProviderType[];
}
