const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID: ids that reach a uuid column are checked first, or PostgreSQL's refusal would be a 500. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
