import { z } from 'zod';
import { AppError, ErrorCode, msg } from './errors/app-error.js';

/**
 * Checks an input's shape at the edge; one schema serves REST and GraphQL. Unknown fields are
 * dropped; a missing, wrongly typed or too long field is VALIDATION_FAILED with a message per field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const fields: Record<string, string> = {};
  for (const issue of result.error.issues) {
    const path = issue.path.join('.') || '(body)';
    fields[path] ??= issue.message;
  }
  throw new AppError(ErrorCode.VALIDATION_FAILED, msg('validation.fields'), { fields });
}

/** A required string, with a message that says what was wrong. */
export const requiredString = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .max(max, `must be at most ${max} characters`);
