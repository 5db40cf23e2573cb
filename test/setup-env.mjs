// Points each worker at its own database (created by global-setup).
if (!process.env.TEST_EMBEDDED_DATABASE && process.env.DATABASE_URL && !process.env.TEST_WORKER_DATABASE_URL) {
  const url = new URL(process.env.DATABASE_URL);
  const base = url.pathname.slice(1) || 'postgres';
  url.pathname = `/${`${base}_w${process.env.JEST_WORKER_ID ?? '1'}`.replace(/[^a-zA-Z0-9_]/g, '_')}`;
  process.env.TEST_WORKER_DATABASE_URL = url.toString();
}
process.env.TEST_WORKER_DATABASE_URL ??= process.env.DATABASE_URL;
