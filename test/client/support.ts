// The client module in Chromium: a page of another site (http://127.0.0.1:<port>, while the service
// is http://localhost:<port>), whose script is test/client/page/harness.ts bundled by Vite with
// Apollo Client, as a frontend's build would bundle it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUNDLE = fileURLToPath(new URL('./page/bundle.mjs', import.meta.url));

/** Bundles the harness page's script (one ES module, Apollo Client and rxjs inside); its path. */
export function bundleHarness(): string {
  const outDir = mkdtempSync(join(tmpdir(), 'client-harness-'));
  const run = spawnSync(process.execPath, [BUNDLE, outDir], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`the harness did not bundle: ${run.stderr}${run.stdout}`);
  return join(outDir, 'harness.js');
}

/** The frontend's own origin: a page that loads the harness and shows `avatar` when given (`?avatar=<url>`). */
export async function serveFrontend(script: string): Promise<{ origin: string; close(): Promise<void> }> {
  const code = readFileSync(script);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://frontend');
    if (url.pathname === '/harness.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(code);
      return;
    }
    const avatar = url.searchParams.get('avatar');
    const img = avatar ? `<img id="avatar" alt="avatar" src="${avatar.replace(/[&"<>]/g, '')}">` : '';
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><script type="module" src="/harness.js"></script></head><body>${img}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
