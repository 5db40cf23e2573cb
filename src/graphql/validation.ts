import { GraphQLError, type ValidationRule } from 'graphql';
import { msg } from '../shared/errors/app-error.js';
import { render } from '../shared/i18n/messages.js';

/** Over HTTP: subscriptions are served over WebSocket only (live-socket.ts). */
export const noSubscriptionsOverHttp: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (node.operation === 'subscription') context.reportError(new GraphQLError(render(msg('live.overWebSocket'), 'en'), { nodes: node }));
  },
});
