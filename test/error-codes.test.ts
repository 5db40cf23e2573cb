// API.md 10.5: the schema declares the error catalogue as `enum ErrorCode`, each value described with
// its status and its `extensions`, and MfaMethod and LoginMethod; the OpenAPI document lists the same
// codes. A code added to the catalogue without its row, or without `npm run generate`, fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { Kind, parse, type EnumTypeDefinitionNode } from 'graphql';
import { LoginMethod } from '../src/modules/public-config/login-method.js';
import { MfaMethod } from '../src/modules/mfa/mfa-method.js';
import { ErrorCode } from '../src/shared/errors/app-error.js';
import { describe as describeCode, ERROR_CODES, explain } from '../src/shared/errors/catalogue.js';
import { dataOf } from './graphql/support.js';
import { useTestServer } from './helpers/server.js';

const CODES = Object.values(ErrorCode).sort();
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** The values of an enum of an SDL file, each with its description. */
function enumOf(sdl: string, name: string): Record<string, string | undefined> {
  const node = parse(sdl).definitions.find((d): d is EnumTypeDefinitionNode => d.kind === Kind.ENUM_TYPE_DEFINITION && d.name.value === name);
  if (!node) throw new Error(`no enum ${name}`);
  return Object.fromEntries((node.values ?? []).map((value) => [value.name.value, value.description?.value]));
}

const t = useTestServer();

describe('the error catalogue in the schema and the OpenAPI document', () => {
  it('has a row (status, title, members) for every code, and no row for a code it does not have', () => {
    expect([...ERROR_CODES].sort()).toEqual(CODES);
    for (const code of CODES) expect([code, describeCode(code).extensions.length > 0, describeCode(code).title.length > 0]).toEqual([code, true, true]);
  });

  it.each(['schema/schema.graphql', 'schema/subgraph.graphql'])('is enum ErrorCode of %s, every value described with its status and members', (file) => {
    const values = enumOf(read(file), 'ErrorCode');
    expect(Object.keys(values).sort()).toEqual(CODES);
    for (const code of CODES) expect([code, values[code]]).toEqual([code, explain(code)]);
    expect(values.RATE_LIMITED).toMatch(/^HTTP 429, .*`retryAfter`/);
    expect(values.MFA_REQUIRED).toMatch(/^HTTP 401, .*`mfaToken`.*`mfaMethods`/);
    expect(values.UNAUTHENTICATED).toMatch(/`reason`: `missing`.*`invalid`.*`expired`.*`session_ended`/);
  });

  it.each(['schema/schema.graphql', 'schema/subgraph.graphql'])('declares MfaMethod and LoginMethod in %s with the values sent on the wire', (file) => {
    const sdl = read(file);
    expect(Object.keys(enumOf(sdl, 'MfaMethod')).sort()).toEqual(Object.values(MfaMethod).sort());
    expect(Object.keys(enumOf(sdl, 'LoginMethod')).sort()).toEqual(Object.values(LoginMethod).sort());
    expect(sdl).toMatch(/\n {2}loginMethods: \[LoginMethod!\]!\n/);
  });

  it('is served: ErrorCode and MfaMethod by introspection, the codes in the OpenAPI document, each with its row', async () => {
    const res = await t.http.post('/graphql', {
      query: '{ errorCode: __type(name: "ErrorCode") { enumValues { name description } } mfaMethod: __type(name: "MfaMethod") { enumValues { name } } }',
    });
    expect(res.status).toBe(200);
    const data = dataOf<{ errorCode: { enumValues: { name: string; description: string }[] }; mfaMethod: { enumValues: { name: string }[] } }>(res);
    expect(Object.fromEntries(data.errorCode.enumValues.map((v) => [v.name, v.description]))).toEqual(Object.fromEntries(CODES.map((code) => [code, explain(code)])));
    expect(data.mfaMethod.enumValues.map((v) => v.name).sort()).toEqual(Object.values(MfaMethod).sort());

    const openapi = await t.http.get('/api/v1/openapi.json');
    expect(openapi.status).toBe(200);
    const code = openapi.body.components.schemas.Problem.properties.code as { enum: string[]; description: string };
    expect([...code.enum].sort()).toEqual(CODES);
    for (const c of CODES) expect(code.description).toContain(`- \`${c}\`: ${explain(c)}`);
  });

  it('gives the client module (and through it the console) the generated ErrorCode and MfaMethod types, every code in them', () => {
    const generated = read('src/client/generated/enums.ts').replace(/\/\*\*[^]*?\*\//g, '');
    const union = (name: string) => [...(new RegExp(`export type ${name} =([^;]*);`).exec(generated)?.[1] ?? '').matchAll(/'(\w+)'/g)].map((m) => m[1]).sort();
    expect(union('ErrorCode')).toEqual(CODES);
    expect(union('MfaMethod')).toEqual(Object.values(MfaMethod).sort());
  });
});
