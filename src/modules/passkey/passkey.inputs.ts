import { z } from 'zod';
import { uuidField } from '../../shared/ids.js';

// The shapes of WebAuthn's JSON serialisation (PublicKeyCredential.toJSON()), checked at the edge:
// whatever passes is handed to @simplewebauthn/server, which then only judges whether it verifies.

/** Each binary field of a response: base64url without padding, at most 16 KiB of text. */
const FIELD_MAX = 16 * 1024;
/** WebAuthn caps a credential id at 1023 bytes: 1364 base64url characters. */
const CREDENTIAL_ID_MAX = 1364;
/** A user handle is at most 64 bytes. */
const USER_HANDLE_MAX = 86;

const present = (issue: { input: unknown }, what: string) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const base64url = (max: number) =>
  z
    .string({ error: (issue) => present(issue, 'a base64url string') })
    .max(max, `must be at most ${max} characters`)
    .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url (A-Z a-z 0-9 - _, no padding)')
    // Four characters carry three bytes: one left over carries none and is no encoding of anything.
    .refine((s) => s.length % 4 !== 1, 'is not a whole base64url encoding');

const required = (max: number) => base64url(max).min(1, 'must not be empty');

const credential = {
  id: required(CREDENTIAL_ID_MAX),
  rawId: required(CREDENTIAL_ID_MAX),
  type: z.literal('public-key', { error: 'must be "public-key"' }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform'], { error: 'must be "platform" or "cross-platform"' }).nullish(),
  clientExtensionResults: z.record(z.string(), z.unknown(), { error: 'must be an object' }).nullish(),
};

/** Both `id` and `rawId` carry the credential id; they must agree. */
const sameId = (value: { id: string; rawId: string }) => value.id === value.rawId;
const sameIdError = { error: 'must equal id', path: ['rawId'] };

const object = (what: string) => ({ error: (issue: { input: unknown }) => present(issue, what) });

/** The result of `navigator.credentials.create()`, as JSON. */
const RegistrationResponseSchema = z
  .object(
    {
      ...credential,
      response: z.object(
        {
          clientDataJSON: required(FIELD_MAX),
          attestationObject: required(FIELD_MAX),
          authenticatorData: base64url(FIELD_MAX).nullish(),
          publicKey: base64url(FIELD_MAX).nullish(),
          publicKeyAlgorithm: z.number({ error: 'must be a number' }).int('must be an integer').nullish(),
          transports: z.array(z.string({ error: 'must be a string' }).max(32, 'must be at most 32 characters'), { error: 'must be an array of strings' }).max(16, 'must have at most 16 entries').nullish(),
        },
        object('an object'),
      ),
    },
    object('an object (the JSON of a PublicKeyCredential)'),
  )
  .refine(sameId, sameIdError);
export type RegistrationResponseInput = z.output<typeof RegistrationResponseSchema>;

/** The result of `navigator.credentials.get()`, as JSON. */
const AuthenticationResponseSchema = z
  .object(
    {
      ...credential,
      response: z.object(
        {
          clientDataJSON: required(FIELD_MAX),
          authenticatorData: required(FIELD_MAX),
          signature: required(FIELD_MAX),
          userHandle: base64url(USER_HANDLE_MAX).nullish(),
        },
        object('an object'),
      ),
    },
    object('an object (the JSON of a PublicKeyCredential)'),
  )
  .refine(sameId, sameIdError);
export type AuthenticationResponseInput = z.output<typeof AuthenticationResponseSchema>;

const NAME_MAX = 64;

/** A passkey's name: trimmed, 1-64 characters, no control or format characters. */
const passkeyName = z
  .string({ error: (issue) => present(issue, 'a string') })
  .max(4 * NAME_MAX, `must be at most ${NAME_MAX} characters`)
  .transform((s) => s.trim().normalize('NFC'))
  .pipe(
    z
      .string()
      .min(1, 'must not be empty')
      .refine((s) => [...s].length <= NAME_MAX, `must be at most ${NAME_MAX} characters`)
      .refine((s) => !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(s), 'must not contain control characters'),
  );

export const AddPasskeySchema = z.object({ response: RegistrationResponseSchema, name: passkeyName.nullish() });
export type AddPasskeyInput = z.output<typeof AddPasskeySchema>;

export const RenamePasskeySchema = z.object({ name: passkeyName });

export const PasskeyLoginSchema = z.object({
  challengeId: uuidField('must be the challengeId of a passkey/options answer'),
  response: AuthenticationResponseSchema,
});
