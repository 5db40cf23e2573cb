import { z } from 'zod';
import { AppError, ErrorCode, msg, type Message } from './errors/app-error.js';
import { CATALOGUES, type MessageId } from './i18n/messages.js';

/**
 * Checks an input's shape at the edge; one schema serves REST and GraphQL. Unknown fields are
 * dropped; a missing, wrongly typed or too long field is VALIDATION_FAILED with a message per field.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  const fields: Record<string, Message | string> = {};
  for (const issue of result.error.issues) {
    const path = issue.path.join('.') || '(body)';
    fields[path] ??= fieldMessage(issue.message);
  }
  throw new AppError(ErrorCode.VALIDATION_FAILED, msg('validation.fields'), { fields });
}

/**
 * The field messages of the catalogues (`field.*`), each as a pattern of its English text with its
 * arguments as groups: the schemas keep writing their messages in English, as zod takes them, and a
 * message that is one of these is rendered in the request's locale.
 */
const FIELD_MESSAGES = Object.entries(CATALOGUES.en)
  .filter(([id]) => id.startsWith('field.'))
  .map(([id, text]) => {
    const names = [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    const source = text.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('(.+)');
    return { id: id as MessageId, names, pattern: new RegExp(`^${source}$`) };
  });

/** The message of the catalogues that `text` (a field message in English) is, with its arguments; else `text` as it is. */
export function fieldMessage(text: string): Message | string {
  for (const { id, names, pattern } of FIELD_MESSAGES) {
    const match = pattern.exec(text);
    if (match) return msg(id, Object.fromEntries(names.map((name, i) => [name, match[i + 1]!])));
  }
  return text;
}

/** A required string, with a message that says what was wrong. */
export const requiredString = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .max(max, `must be at most ${max} characters`);
