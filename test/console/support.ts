// What the operator console's test files share: where its build is, and the files its page names.
import { fileURLToPath } from 'node:url';

/** The console's trusted-documents manifest as the build ships it, for GRAPHQL_TRUSTED_DOCUMENTS. */
export const CONSOLE_MANIFEST = fileURLToPath(new URL('../../dist/console/persisted-documents.json', import.meta.url));

/** The scripts, styles and icons a page names (src and href attributes). */
export function consoleFiles(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
}
