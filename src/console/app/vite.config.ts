import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The console's trusted-documents manifest (written by codegen) beside the built page, as
 * dist/console/persisted-documents.json: what an operator adds to GRAPHQL_TRUSTED_DOCUMENTS. The
 * service serves the page and assets/ only, never this file.
 */
function trustedDocumentsManifest(): Plugin {
  return {
    name: 'console-trusted-documents',
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: 'persisted-documents.json', source: readFileSync(here('generated/persisted-documents.json'), 'utf8') });
    },
  };
}

// The operator console, built by `npm run build` (src/console/app/build.mjs) into dist/console, which
// the service serves at /console (src/console/console.routes.ts).
export default defineConfig({
  root: here('.'),
  base: '/console/',
  publicDir: false,
  clearScreen: false,
  logLevel: 'warn',
  plugins: [trustedDocumentsManifest()],
  build: {
    outDir: here('../../../dist/console'),
    emptyOutDir: true,
    // Every file under assets/ with its content hash in its name, cached for good; nothing inlined
    // as a data: URL, which the page's Content-Security-Policy would refuse.
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    reportCompressedSize: false,
  },
});
