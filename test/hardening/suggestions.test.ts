// In production no GraphQL error suggests a name or a value ("Did you mean ...?"): not for a wrong
// enum value or input field in the variables (coerced at execution, where Apollo's
// hideSchemaDetailsFromClientErrors does not reach), nor inline in the document (validation).
import { describe, expect, it } from '@jest/globals';
import { errorOf } from '../graphql/support.js';
import { newPhone, type TestServer, useTestServer } from '../helpers/server.js';

const BY_VARIABLE = 'mutation($p: CodePurpose!, $phone: String!) { sendCode(input: { phone: $phone, purpose: $p }) { expiresIn } }';
const BY_INPUT = 'mutation($i: SendCodeInput!) { sendCode(input: $i) { expiresIn } }';

interface Case {
  name: string;
  /** What a suggestion would name. */
  suggestion: RegExp;
  query: (phone: string) => string;
  variables: (phone: string) => Record<string, unknown> | undefined;
}

const CASES: Case[] = [
  { name: 'an enum variable', suggestion: /LOGIN/, query: () => BY_VARIABLE, variables: (phone) => ({ p: 'LOGN', phone }) },
  { name: 'an enum inside an input variable', suggestion: /LOGIN/, query: () => BY_INPUT, variables: (phone) => ({ i: { phone, purpose: 'LOGN' } }) },
  { name: 'a misspelt field of an input variable', suggestion: /\bpurpose\b/, query: () => BY_INPUT, variables: (phone) => ({ i: { phone, purpos: 'LOGIN' } }) },
  { name: 'an inline enum literal', suggestion: /LOGIN/, query: (phone) => `mutation { sendCode(input: { phone: "${phone}", purpose: LOGN }) { expiresIn } }`, variables: () => undefined },
  { name: 'a misspelt inline field', suggestion: /\bpurpose\b/, query: (phone) => `mutation { sendCode(input: { phone: "${phone}", purpos: LOGIN }) { expiresIn } }`, variables: () => undefined },
];

function ask(t: TestServer, c: Case) {
  const phone = newPhone();
  return t.http.post('/graphql', { query: c.query(phone), variables: c.variables(phone) });
}

describe('in production', () => {
  const prod = useTestServer({ NODE_ENV: 'production' });

  it.each(CASES)('refuses $name with VALIDATION_FAILED and no suggestion', async (c) => {
    const res = await ask(prod, c);
    expect(res.status).toBe(400);
    errorOf(res, 'VALIDATION_FAILED');
    const text = JSON.stringify(res.body);
    expect(text).not.toMatch(/did you mean|suggestion hidden/i);
    expect(text).not.toMatch(c.suggestion);
  });
});

describe('in development', () => {
  const dev = useTestServer({ NODE_ENV: 'development' });

  it('still suggests the enum value of a variable', async () => {
    const res = await ask(dev, CASES[0]!);
    errorOf(res, 'VALIDATION_FAILED');
    expect(JSON.stringify(res.body)).toMatch(/Did you mean the enum value \\"LOGIN\\"\?/);
  });
});
