let pending: string | undefined;

/** A message for the next page shown (an account deleted, then the search page). */
export function flash(message: string): void {
  pending = message;
}

/** The pending message, once. */
export function takeFlash(): string | undefined {
  const message = pending;
  pending = undefined;
  return message;
}
