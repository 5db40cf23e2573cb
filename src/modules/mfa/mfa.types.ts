import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType('MfaStatus', { description: "The signed-in user's second factors" })
export class MfaStatusType {
  @Field({ description: 'Whether TOTP is on (confirmed)' })
  totp!: boolean;

  @Field(() => Int, { description: 'Recovery codes not used yet' })
  recoveryCodesLeft!: number;

  @Field(() => Int, { description: 'Registered passkeys' })
  passkeys!: number;
}

@ObjectType('TotpEnrollment', { description: 'A pending TOTP secret: on once confirmTotp gets one of its codes' })
export class TotpEnrollmentType {
  @Field({ description: 'The secret in base32, for typing into an authenticator app' })
  secret!: string;

  @Field({ description: 'otpauth://totp/ URI (SHA1, 6 digits, 30 s)' })
  otpauthUri!: string;

  @Field({ description: 'The otpauth URI as a QR code (SVG document)' })
  qrCodeSvg!: string;
}
