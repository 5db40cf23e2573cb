// The pieces of the gateway test: Hive Gateway's runtime started with gateway/gateway.config.mjs as
// its CLI would start it, and a recorder on the wire between the gateway and this service.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGatewayRuntime, type GatewayConfigSupergraph, type GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { useJWT, type JWTAuthPluginOptions } from '@graphql-mesh/plugin-jwt-auth';
import http from '@graphql-mesh/transport-http';

const CONFIG_FILE = new URL('../../gateway/gateway.config.mjs', import.meta.url).href;

/** What gateway/gateway.config.mjs exports as `gatewayConfig`. */
type FileConfig = Omit<GatewayConfigSupergraph, 'supergraph'> & { jwt: JWTAuthPluginOptions };

export interface RunningGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * Hive Gateway over `supergraph`, configured by gateway/gateway.config.mjs read with `env`, served on
 * a free loopback port. As the CLI does with such a file, its `jwt` block becomes the JWT plugin, put
 * before the file's own plugins; the HTTP transport, which the CLI loads by name, is given here.
 */
export async function startGateway(supergraph: string, env: Record<string, string>): Promise<RunningGateway> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  let config: FileConfig;
  try {
    ({ gatewayConfig: config } = (await import(CONFIG_FILE)) as { gatewayConfig: FileConfig });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  const runtime = createGatewayRuntime({
    ...config,
    supergraph,
    transports: { http },
    logging: false,
    // (The plugin's typings bundle a copy of the runtime's, whose Logger class differs by name only.)
    plugins: (ctx) => [useJWT(config.jwt) as unknown as GatewayPlugin, ...(config.plugins?.(ctx) ?? [])],
  });
  const server = createServer(runtime);
  const url = await listen(server);
  return {
    url: `${url}/graphql`,
    async stop() {
      server.closeAllConnections();
      server.close();
      await runtime.dispose();
    },
  };
}

/** One request that went through the recorder. */
interface Recorded {
  method: string;
  path: string;
  authorization: string | null;
  body: string;
}

export interface Recorder {
  /** The recorder's base URL: requests to it go on to the target, path and all. */
  url: string;
  requests: Recorded[];
  /** While true, the target is out of reach: every request is answered 503, and recorded. */
  unavailable: boolean;
  stop(): Promise<void>;
}

/** A pass-through to `target` that records every request it forwards (loopback, a free port). */
export async function startRecorder(target: string): Promise<Recorder> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    recorder.requests.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization ?? null, body });
    if (recorder.unavailable) return void res.writeHead(503).end();
    try {
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers: forwardable(req.headers), body: body || undefined });
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding')));
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  });
  const recorder: Recorder = {
    url: await listen(server),
    requests: [],
    unavailable: false,
    async stop() {
      server.closeAllConnections();
      server.close();
    },
  };
  return recorder;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host', 'upgrade']);

function forwardable(headers: IncomingHttpHeaders): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) => (HOP_BY_HOP.has(name) || value === undefined ? [] : [[name, Array.isArray(value) ? value.join(', ') : value]])),
  );
}

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
