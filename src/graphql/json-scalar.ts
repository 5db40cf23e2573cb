import { GraphQLError, GraphQLScalarType } from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import { JSON_MAX_DEPTH } from '../shared/text.js';

/** How deep objects and arrays nest in `value` (a scalar: 0), counted without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    if (deepest > JSON_MAX_DEPTH) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function checked<T>(value: T): T {
  if (depthOf(value) > JSON_MAX_DEPTH) throw new GraphQLError(`JSON values may nest objects and arrays at most ${JSON_MAX_DEPTH} levels deep`);
  return value;
}

/**
 * graphql-scalars' `JSON` with a bound on nesting, checked before anything converts the value
 * (type-graphql converts arguments recursively: a value thousands of levels deep would exhaust
 * its stack). A variable is refused by graphql-js's coercion, a literal by validation.
 */
export const JsonScalar = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  parseValue: (value) => JSONResolver.parseValue(checked(value)),
  parseLiteral: (ast, variables) => checked(JSONResolver.parseLiteral(ast, variables)),
});
