import 'reflect-metadata';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { printSubgraph } from '../../src/graphql/federation.js';
import { buildAppSchema, printAppSchema } from '../../src/graphql/schema.js';
import { ErrorCode } from '../../src/shared/errors/app-error.js';
import { describe as describeCode } from '../../src/shared/errors/catalogue.js';

describe('GraphQL schema', () => {
  it('matches the committed schema/schema.graphql (run npm run generate after changing resolvers)', async () => {
    const committed = await readFile(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
    expect(printAppSchema(await buildAppSchema())).toBe(committed);
  });

  it('matches the committed subgraph SDL, schema/subgraph.graphql (what a gateway composes)', async () => {
    const committed = await readFile(new URL('../../schema/subgraph.graphql', import.meta.url), 'utf8');
    expect(await printSubgraph(await buildAppSchema())).toBe(committed);
    expect(committed).toContain('type User @key(fields: "id")');
  });

  it('has the operation names the contract fixes', async () => {
    const schema = await buildAppSchema();
    expect(Object.keys(schema.getQueryType()!.getFields()).sort()).toEqual(expect.arrayContaining(['config', 'me']));
    expect(Object.keys(schema.getMutationType()!.getFields())).toEqual(
      expect.arrayContaining(['sendCode', 'login', 'loginWithPassword', 'register', 'refreshToken', 'logout']),
    );
  });

  it('exposes no field that could carry a secret', async () => {
    const sdl = printAppSchema(await buildAppSchema());
    expect(sdl).not.toMatch(/passwordHash|password_hash|codeHash|tokenHash/i);
  });
});

describe('error catalogue', () => {
  it('maps every code to the status of the contract', () => {
    const expected: Record<ErrorCode, number> = {
      VALIDATION_FAILED: 400, INVALID_PHONE: 400, WEAK_PASSWORD: 400, INVALID_CODE: 400, INVALID_CREDENTIALS: 401,
      UNAUTHENTICATED: 401, REGISTRATION_DISABLED: 403, NOT_FOUND: 404, PHONE_ALREADY_REGISTERED: 409,
      PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, INVALID_IMAGE: 422, RATE_LIMITED: 429, INTERNAL: 500,
      SERVICE_UNAVAILABLE: 503, SMS_DELIVERY_FAILED: 502, FORBIDDEN: 403, ACCOUNT_BLOCKED: 403, MFA_REQUIRED: 401,
      MFA_ALREADY_ENABLED: 409, METHOD_NOT_ALLOWED: 405, REQUEST_TIMEOUT: 408, PHONE_VERIFICATION_REQUIRED: 401,
      IDENTITY_ALREADY_LINKED: 409, IDENTITY_PROVIDER_ERROR: 502, PERSISTED_QUERY_NOT_FOUND: 400, PHONE_TAKEN: 409, SECOND_PROOF_REQUIRED: 401,
    };
    for (const code of Object.values(ErrorCode)) expect([code, describeCode(code).status]).toEqual([code, expected[code]]);
  });
});
