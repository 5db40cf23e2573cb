import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import { getOperationAST, Kind, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Metrics } from '../shared/metrics/metrics.js';
import type { GraphQLContext } from './context.js';

/** `operation` and `type` of a request whose document could not be read (no query, a syntax error). */
const INVALID = '(invalid)';
/** `operation` of a document whose first root field is not one of the schema's (refused by validation). */
const UNKNOWN = '(unknown)';
/** `operation` of __schema, __type and __typename at the root. */
const INTROSPECTION = '(introspection)';

/**
 * Counts `graphql_operations_total`. The operation is named by its first root field (`me`,
 * `loginWithCode`), a name the schema bounds, rather than by the operation name the client chose,
 * which is free text; `outcome` is `success` or the `extensions.code` of the first error, as the client
 * got it (VALIDATION_FAILED for a document or variables that do not fit the schema).
 */
export function metricsPlugin(metrics: Metrics): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse(context) {
          const { operation, type } = describe(context);
          metrics.graphqlOperation(operation, type, outcomeOf(context));
        },
      };
    },
  };
}

function describe({ operation, document, request, schema }: GraphQLRequestContextWillSendResponse<GraphQLContext>): { operation: string; type: string } {
  const definition: OperationDefinitionNode | null | undefined = operation ?? (document && getOperationAST(document, request.operationName));
  if (!definition) return { operation: document ? UNKNOWN : INVALID, type: INVALID };
  return { operation: rootField(definition, schema), type: definition.operation };
}

/** The operation as graphql_operations_total names it: its first root field. */
export function rootField(definition: OperationDefinitionNode, schema: GraphQLSchema): string {
  const first = definition.selectionSet.selections[0];
  if (first?.kind !== Kind.FIELD) return UNKNOWN;
  const name = first.name.value;
  if (name.startsWith('__')) return name === '__schema' || name === '__type' || name === '__typename' ? INTROSPECTION : UNKNOWN;
  const root = schema.getRootType(definition.operation);
  return root?.getFields()[name] ? name : UNKNOWN;
}

function outcomeOf({ response }: GraphQLRequestContextWillSendResponse<GraphQLContext>): string {
  if (response.body.kind !== 'single') return 'success';
  const code = response.body.singleResult.errors?.[0]?.extensions?.code;
  if (!response.body.singleResult.errors?.length) return 'success';
  return typeof code === 'string' && /^[A-Z_]{1,40}$/.test(code) ? code : 'INTERNAL';
}
