/** A connection URL fit for logs and summaries: the password replaced by ***. */
export function redactUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

/** A URL fit to show: its whole userinfo (a user name can be a token too) replaced by ***. */
export function redactUserinfo(url: string): string {
  const parsed = new URL(url);
  if (parsed.username) parsed.username = '***';
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
