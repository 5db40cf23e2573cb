/**
 * A URL fit for logs and summaries: the password replaced by ***, and with `username` the user
 * name too (where it can be a token itself, as in a webhook receiver's URL).
 */
export function redactUrl(url: string, { username = false }: { username?: boolean } = {}): string {
  const parsed = new URL(url);
  if (username && parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
