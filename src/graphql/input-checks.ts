import type { ApolloServerPlugin, GraphQLRequestListener } from '@apollo/server';
import {
  GraphQLError,
  Kind,
  getArgumentValues,
  getNamedType,
  isInterfaceType,
  isObjectType,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from 'graphql';
import { Extensions } from 'type-graphql';
import type { z } from 'zod';
import { AppError, ErrorCode, msg } from '../shared/errors/app-error.js';
import { findInputProblem, unstorable } from '../shared/text.js';
import { fieldMessage, parseInput } from '../shared/validation.js';

// GraphQL's half of the input checks that hold before anything runs: text PostgreSQL cannot store,
// in variables and in the document's string literals (REST's half is shared/http/input-guard.ts),
// and the arguments of every field below the root, so that a mutation whose selection asks for an
// out-of-range page is refused before it changes anything, not after.

const ARGUMENTS = 'arguments';

/**
 * Names the schema that parses the arguments of a field below the root (`AdminUser.securityEvents`):
 * the operation is refused with VALIDATION_FAILED, before any resolver runs, when they do not parse.
 * Every such field must have one (see assertNestedArgumentsChecked).
 */
export function ArgumentsParsedBy(schema: z.ZodType): MethodDecorator & PropertyDecorator {
  return Extensions({ [ARGUMENTS]: schema });
}

/** Throws, naming them, when fields below the root take arguments without ArgumentsParsedBy. */
export function assertNestedArgumentsChecked(schema: GraphQLSchema): void {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean));
  const unchecked = Object.values(schema.getTypeMap())
    .filter((type) => (isObjectType(type) || isInterfaceType(type)) && !type.name.startsWith('__') && !roots.has(type as never))
    .flatMap((type) => Object.values((type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields()).map((field) => [type.name, field] as const))
    .filter(([, field]) => field.args.length > 0 && !field.extensions[ARGUMENTS])
    .map(([type, field]) => `${type}.${field.name}`);
  if (unchecked.length > 0) throw new Error(`Fields below the root take arguments that nothing checks before execution: ${unchecked.join(', ')} (add @ArgumentsParsedBy)`);
}

/** Refuses string literals of the document that PostgreSQL could not store (U+0000 written as an escape). */
export const storableStringLiterals: ValidationRule = (context) => ({
  StringValue(node) {
    const problem = unstorable(node.value);
    if (problem) context.reportError(new GraphQLError(`A string argument ${problem}`, { nodes: node }));
  },
});

interface NestedCheck {
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
  schema: z.ZodType;
}

/**
 * The fields with ArgumentsParsedBy that an operation selects anywhere (through fragments and
 * aliases), found once per parsed operation: Apollo keeps the parsed documents of known queries, so
 * a repeated query is a WeakMap lookup.
 */
const plans = new WeakMap<OperationDefinitionNode, NestedCheck[]>();

function planOf(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): NestedCheck[] {
  let plan = plans.get(operation);
  if (plan) return plan;
  plan = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const root = schema.getRootType(operation.operation);
  const walked = new Set<string>();
  const stack: { set: SelectionSetNode; type: GraphQLNamedType | undefined | null }[] = [{ set: operation.selectionSet, type: root }];
  while (stack.length > 0) {
    const { set, type } = stack.pop()!;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = type && (isObjectType(type) || isInterfaceType(type)) ? type.getFields()[selection.name.value] : undefined;
        const parse = field?.extensions[ARGUMENTS] as z.ZodType | undefined;
        if (field && parse && type !== root) plan.push({ field, node: selection, schema: parse });
        if (selection.selectionSet) stack.push({ set: selection.selectionSet, type: field && getNamedType(field.type) });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push({ set: selection.selectionSet, type: selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type });
      } else if (!walked.has(selection.name.value)) {
        // Its fields' arguments are the same wherever it is spread: one walk of each fragment.
        walked.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) stack.push({ set: fragment.selectionSet, type: schema.getType(fragment.typeCondition.name.value) });
      }
    }
  }
  plans.set(operation, plan);
  return plan;
}

/** A refusal of the whole operation, before execution: 400, with the code and fields of `error`. */
export function refused(error: AppError): GraphQLError {
  return new GraphQLError(error.message, { originalError: error, extensions: { http: { status: 400 } } });
}

/**
 * Checks an operation's variables for text that cannot be stored and for nesting deeper than a
 * `JSON` value may have, then the arguments of every ArgumentsParsedBy field it selects.
 */
export function inputChecksPlugin<C extends object>(): ApolloServerPlugin<C> {
  // One listener for every request: no allocation per request for the many that have nothing to check.
  const listener: GraphQLRequestListener<C> = {
    async didResolveOperation({ request, document, operation, schema }) {
      const variables = request.variables;
      for (const [name, value] of Object.entries(variables ?? {})) {
        const found = findInputProblem(value);
        if (!found) continue;
        // As graphql-js names a variable's fields: `$input.nickname` is `nickname`; a nesting, the variable.
        const field = found.tooDeep || found.path.length === 0 ? name : found.path.join('.');
        throw refused(new AppError(ErrorCode.VALIDATION_FAILED, msg('graphql.variableRefused', { name, field, problem: fieldMessage(found.problem) }), { fields: { [field]: fieldMessage(found.problem) } }));
      }
      for (const check of operation ? planOf(schema, document, operation) : []) {
        let args: Record<string, unknown>;
        try {
          args = getArgumentValues(check.field, check.node, variables ?? {});
        } catch {
          continue; // a variable of the wrong type: execution refuses it as graphql-js does
        }
        try {
          parseInput(check.schema, args);
        } catch (error) {
          throw error instanceof AppError ? refused(error) : error;
        }
      }
    },
  };
  return { requestDidStart: async () => listener };
}
