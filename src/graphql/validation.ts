import { GraphQLError, type ValidationRule } from 'graphql';
import { msg } from '../shared/errors/app-error.js';
import { render } from '../shared/i18n/messages.js';

/**
 * Refuses an operation whose type the schema has no root for. graphql-js's own rules let such a document through and its executor then throws, which
 * Apollo reports as an internal error; refused here, it is a request error like any other.
 */
export const servedOperationTypesOnly: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (!context.getSchema().getRootType(node.operation)) {
      context.reportError(new GraphQLError(`This service has no ${node.operation} operations`, { nodes: node }));
    }
  },
});

/** Over HTTP: subscriptions are served over WebSocket only (live-socket.ts). */
export const noSubscriptionsOverHttp: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === 'subscription') context.reportError(new GraphQLError(render(msg('live.overWebSocket'), 'en'), { nodes: node }));
  },
});
