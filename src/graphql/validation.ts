import { GraphQLError, type ValidationRule } from 'graphql';

/**
 * Refuses an operation whose type the schema has no root for (a `subscription`: this service has
 * none). graphql-js's own rules let such a document through and its executor then throws, which
 * Apollo reports as an internal error; refused here, it is a request error like any other.
 */
export const servedOperationTypesOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(new GraphQLError(`This service has no ${node.operation} operations`, { nodes: node }));
    }
  },
});
