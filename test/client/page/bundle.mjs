// Bundles harness.ts into one ES module (Apollo Client and rxjs inside) in the directory given as
// the first argument. Run in a process of its own: Vite's bundler does not run inside jest's VM.
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

await build({
  configFile: false,
  logLevel: 'warn',
  build: {
    outDir: process.argv[2],
    emptyOutDir: true,
    minify: false,
    lib: { entry: fileURLToPath(new URL('./harness.ts', import.meta.url)), formats: ['es'], fileName: () => 'harness.js' },
  },
  define: { 'process.env.NODE_ENV': '"production"' },
});
