import { GraphQLEnumType, GraphQLSchema } from 'graphql';
import { MFA_METHOD_DESCRIPTIONS, MfaMethod } from '../modules/mfa/mfa-method.js';
import { ERROR_CODES, explain } from '../shared/errors/catalogue.js';

/** `extensions.code` of every GraphQL error: the catalogue, one value per code, described from its row. */
const ErrorCodeType = new GraphQLEnumType({
  name: 'ErrorCode',
  description:
    "`extensions.code` of a GraphQL error: the error catalogue (REST's problem `code`). Each value says its HTTP status and the members `extensions` carries besides `code` and `requestId`. Codes are added, never renamed: treat one you do not know by its HTTP status.",
  values: Object.fromEntries(ERROR_CODES.map((code) => [code, { value: code, description: explain(code) }])),
});

/** The values of MFA_REQUIRED's `extensions.mfaMethods`. */
const MfaMethodType = new GraphQLEnumType({
  name: 'MfaMethod',
  description: "A code an mfaToken takes: the values of MFA_REQUIRED's `extensions.mfaMethods` (JSON, so not typed by the schema)",
  values: Object.fromEntries(Object.values(MfaMethod).map((method) => [method, { value: method, description: MFA_METHOD_DESCRIPTIONS[method] }])),
});

/**
 * The schema with the types of its errors, which no field returns: type-graphql puts a registered
 * enum in the schema only when a field uses it (its `orphanedTypes` takes classes: object, interface
 * and input types), and graphql-js keeps a type no field uses only when the schema lists it. Listed
 * here, they are printed in schema/schema.graphql and the subgraph SDL, and so reach clients' codegen.
 */
export function withErrorTypes(schema: GraphQLSchema): GraphQLSchema {
  const config = schema.toConfig();
  return new GraphQLSchema({ ...config, types: [...config.types, ErrorCodeType, MfaMethodType] });
}
