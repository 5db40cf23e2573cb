import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import { costLimitRule, type CostLimitOptions } from '@escape.tech/graphql-armor-cost-limit';
import { GraphQLError, Kind, getArgumentValues, getVariableValues, validate, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import type { z } from 'zod';
import { AppError, ErrorCode, msg, type Message } from '../shared/errors/app-error.js';
import { internalKeyCheck } from '../shared/internal-key.js';
import { fieldMessage } from '../shared/validation.js';
import { entityKeys } from './federation.js';
import { refused } from './input-checks.js';

/** Representations of one `_entities` field, and of all those of one operation (API.md 10.0): a gateway's batch of a long list still fits. */
const REPRESENTATIONS = { perField: 500, perOperation: 1000 } as const;

/** Apollo's words when introspection is off (its NoIntrospection rule): a refused `_service` cannot be told from it. */
const INTROSPECTION_REFUSED =
  'GraphQL introspection is not allowed by Apollo Server, but the query contained __schema or __type. To enable introspection, pass introspection: true to ApolloServer in production';

export interface FederationGuardOptions {
  /** `_service { sdl }` only for a caller presenting X-Internal-Key (production): the SDL is the whole schema. */
  sdlNeedsKey: boolean;
  internalApiKey: string | undefined;
  /** The document cost limit (GraphQL Armor's options), in which each representation counts `objectCost`. */
  cost: CostLimitOptions & { maxCost: number; objectCost: number };
}

/** The `_entities` and `_service` fields an operation selects (aliases and fragments included), and its document's cost. */
interface Plan {
  entities: FieldNode[];
  service: FieldNode[];
  cost?: number;
}

/** Per parsed operation: Apollo keeps the parsed documents of known queries, so a repeated one is a lookup. */
const plans = new WeakMap<OperationDefinitionNode, Plan>();

/**
 * The federation fields' own rules, checked once the operation is known and before anything runs:
 * `_service` outside production or with the internal key only (else refused as introspection is), and
 * `_entities` with at most REPRESENTATIONS, within the cost limit, each an object naming an entity
 * type with its key fields (else VALIDATION_FAILED: @apollo/subgraph would throw a plain Error,
 * INTERNAL, for a `__typename` of no entity).
 */
export function federationGuardPlugin<C extends object>({ sdlNeedsKey, internalApiKey, cost }: FederationGuardOptions): ApolloServerPlugin<C> {
  const keyIsRight = internalKeyCheck(internalApiKey);
  const listener: GraphQLRequestListener<C> = {
    async didResolveOperation({ request, document, operation, schema }) {
      if (!operation) return;
      const plan = planOf(document, operation);
      if (plan.service.length > 0 && sdlNeedsKey && !keyIsRight(request.http?.headers.get('x-internal-key'))) {
        throw new GraphQLError(INTROSPECTION_REFUSED, { nodes: plan.service, extensions: { code: ApolloServerErrorCode.GRAPHQL_VALIDATION_FAILED, http: { status: 400 } } });
      }
      if (plan.entities.length === 0) return;
      // Coerced as execution will coerce them (a variable's default included); variables it refuses, it refuses.
      const variables = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
      if (variables.coerced) checkRepresentations(schema, document, operation, plan, variables.coerced, cost);
    },
  };
  return { requestDidStart: async () => listener };
}

function checkRepresentations(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, plan: Plan, variables: Record<string, unknown>, cost: FederationGuardOptions['cost']): void {
  const field = schema.getQueryType()!.getFields()._entities!;
  const lists = plan.entities.map((node) => {
    let value: unknown;
    try {
      value = getArgumentValues(field, node, variables).representations;
    } catch {
      return []; // refused by execution as graphql-js refuses it
    }
    return Array.isArray(value) ? value : [value];
  });
  let total = 0;
  for (const [i, list] of lists.entries()) {
    const name = (plan.entities[i]!.alias ?? plan.entities[i]!.name).value;
    if (list.length > REPRESENTATIONS.perField) throw invalid(msg('federation.tooManyPerField', { max: String(REPRESENTATIONS.perField), found: String(list.length), field: name }));
    total += list.length;
  }
  if (total > REPRESENTATIONS.perOperation) throw invalid(msg('federation.tooManyPerOperation', { max: String(REPRESENTATIONS.perOperation), found: String(total) }));
  const found = (plan.cost ??= documentCost(schema, document, operation, cost)) + cost.objectCost * total;
  if (found > cost.maxCost) throw invalid(msg('federation.costExceeded', { max: String(cost.maxCost), found: String(found), total: String(total), each: String(cost.objectCost) }));
  const keys = entityKeys(schema);
  for (const list of lists) list.forEach((representation, index) => checkRepresentation(keys, representation, `representations.${index}`));
}

/** An object whose `__typename` names an entity type, with the key fields its schema accepts. */
function checkRepresentation(keys: ReadonlyMap<string, z.ZodType>, representation: unknown, at: string): void {
  if (representation === null || typeof representation !== 'object' || Array.isArray(representation)) {
    throw invalid(msg('federation.notObject'), { [at]: msg('federation.notObject.field') });
  }
  const typename = (representation as { __typename?: unknown }).__typename;
  const key = typeof typename === 'string' ? keys.get(typename) : undefined;
  if (!key) throw invalid(msg('federation.notEntity'), { [`${at}.__typename`]: msg('federation.notEntity.field', { types: [...keys.keys()].join(', ') }) });
  const issue = key.safeParse(representation).error?.issues[0];
  if (issue) throw invalid(msg('federation.badKey', { typename: typename as string }), { [[at, ...issue.path.map(String)].join('.')]: fieldMessage(issue.message) });
}

function invalid(message: Message, fields?: Record<string, Message | string>): GraphQLError {
  return refused(new AppError(ErrorCode.VALIDATION_FAILED, message, fields && { fields }));
}

/** What GraphQL Armor's cost limit counts for the operation (its fragments included). */
function documentCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, options: CostLimitOptions): number {
  let found = 0;
  const definitions = document.definitions.filter((definition) => definition === operation || definition.kind === Kind.FRAGMENT_DEFINITION);
  validate(schema, { kind: Kind.DOCUMENT, definitions }, [costLimitRule({ ...options, maxCost: Infinity, onAccept: [(_context, { n }: { n: number }) => void (found = n)] })]);
  return found;
}

function planOf(document: DocumentNode, operation: OperationDefinitionNode): Plan {
  let plan = plans.get(operation);
  if (plan) return plan;
  plan = { entities: [], service: [] };
  // Both are fields of Query, which no other type's field returns: the root's selections are enough.
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walked = new Set<string>();
  const stack: SelectionSetNode[] = operation.operation === 'query' ? [operation.selectionSet] : [];
  while (stack.length > 0) {
    for (const selection of stack.pop()!.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '_entities') plan.entities.push(selection);
        else if (selection.name.value === '_service') plan.service.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push(selection.selectionSet);
      } else if (!walked.has(selection.name.value)) {
        walked.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) stack.push(fragment.selectionSet);
      }
    }
  }
  plans.set(operation, plan);
  return plan;
}
