import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Config } from '../../config/config.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_LENGTH } from '../../shared/password/password-policy.js';
import { ACCEPTED_AVATAR_TYPES } from '../avatar/avatar-image.js';
import { LoginMethod } from './login-method.js';


const contentSchema = z.strictObject({
  about: z
    .strictObject({
      appName: z.string(),
      description: z.string(),
      website: z.string(),
      termsUrl: z.string(),
      privacyUrl: z.string(),
      contactEmail: z.string(),
    })
    .partial()
    .optional(),
  helpCenter: z
    .strictObject({
      url: z.string(),
      supportEmail: z.string(),
      supportPhone: z.string(),
      faqs: z.array(z.strictObject({ question: z.string(), answer: z.string() })),
    })
    .partial()
    .optional(),
});

const DEFAULT_CONTENT = {
  about: {
    appName: 'Meeting',
    description: 'Video meetings for teams of every size.',
    website: 'https://meeting.example.com',
    termsUrl: 'https://meeting.example.com/terms',
    privacyUrl: 'https://meeting.example.com/privacy',
    contactEmail: 'hello@meeting.example.com',
  },
  helpCenter: {
    url: 'https://meeting.example.com/help',
    supportEmail: 'support@meeting.example.com',
    supportPhone: '+864000000000',
    faqs: [
      { question: 'How do I sign in?', answer: 'Enter your phone number and the 6-digit code we send you by SMS, or your password.' },
      { question: 'I did not receive a code.', answer: 'Wait a minute and request a new one; each new code replaces the previous one.' },
    ],
  },
};

/** What clients may know of the service; REST sends it as it is, GraphQL as the PublicConfig type. */
export interface PublicConfig {
  registrationEnabled: boolean;
  about: typeof DEFAULT_CONTENT.about & { version: string };
  helpCenter: typeof DEFAULT_CONTENT.helpCenter;
  auth: {
    codeLength: number;
    codeTtlSeconds: number;
    resendIntervalSeconds: number;
    passwordMinLength: number;
    passwordMaxBytes: number;
    loginMethods: LoginMethod[];
  };
  avatar: { maxBytes: number; acceptedTypes: string[] };
  /** The external providers a sign-in page offers (IDENTITY_PROVIDERS), in their order. */
  identityProviders: { id: string; name: string }[];
}

/** What clients may know of the service: registration switch, about, help center and the limits they must respect. */
export class PublicConfigService {
  private readonly content: typeof DEFAULT_CONTENT;

  constructor(
    private readonly config: Config,
    private readonly version: string,
  ) {
    const custom = config.publicConfigFile ? readContent(config.publicConfigFile) : {};
    this.content = {
      about: { ...DEFAULT_CONTENT.about, ...custom.about },
      helpCenter: { ...DEFAULT_CONTENT.helpCenter, ...custom.helpCenter },
    };
  }

  get(): PublicConfig {
    const { config } = this;
    return {
      registrationEnabled: config.registrationEnabled,
      about: { ...this.content.about, version: this.version },
      helpCenter: this.content.helpCenter,
      auth: {
        codeLength: config.code.length,
        codeTtlSeconds: config.code.ttlSeconds,
        resendIntervalSeconds: config.sendCode.intervalSeconds,
        passwordMinLength: PASSWORD_MIN_LENGTH,
        passwordMaxBytes: PASSWORD_MAX_BYTES,
        loginMethods: [LoginMethod.sms_code, LoginMethod.password],
      },
      avatar: { maxBytes: config.avatar.maxBytes, acceptedTypes: [...ACCEPTED_AVATAR_TYPES] },
      identityProviders: config.identity.providers.map(({ id, name }) => ({ id, name })),
    };
  }
}

/** Read once at start-up; a bad file stops the service with the file name and the faulty keys. */
function readContent(file: string): z.output<typeof contentSchema> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError([`PUBLIC_CONFIG_FILE: cannot read ${file} as JSON (${(error as Error).message})`]);
  }
  const parsed = contentSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `PUBLIC_CONFIG_FILE ${file}: ${i.path.join('.')}: ${i.message}`));
  }
  return parsed.data;
}
