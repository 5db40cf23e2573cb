// The pieces of the gateway tests: Hive Gateway's runtime started with gateway/gateway.config.mjs as
// its CLI would start it, and a recorder on the wire between the gateway and this service.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createGatewayRuntime, getGraphQLWSOptions, type GatewayConfigSupergraph, type GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { useJWT, type JWTAuthPluginOptions } from '@graphql-mesh/plugin-jwt-auth';
import http from '@graphql-mesh/transport-http';
import ws from '@graphql-mesh/transport-ws';
import { useServer, type Extra } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';

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
 * before the file's own plugins; the HTTP and WebSocket transports, which the CLI loads by name, are
 * given here; and GraphQL over WebSocket (graphql-ws) is served on the same path, as the CLI serves it.
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
    transports: { http, ws },
    logging: false,
    // (The plugin's typings bundle a copy of the runtime's, whose Logger class differs by name only.)
    plugins: (ctx) => [useJWT(config.jwt) as unknown as GatewayPlugin, ...(config.plugins?.(ctx) ?? [])],
  });
  // The CLI has the supergraph before it listens; a WebSocket subscription does not load it itself.
  await runtime.getSchema();
  const server = createServer(runtime);
  const sockets = new WebSocketServer({ server, path: runtime.graphqlEndpoint });
  // The server context the CLI gives a WebSocket operation: the upgrade request and the client's socket.
  const graphqlWs = useServer(
    getGraphQLWSOptions<Record<string, unknown>, Extra>(runtime, ({ extra }) => ({
      req: extra.request,
      socket: extra.socket,
      request: new runtime.fetchAPI.Request(new URL(extra.request.url!, `http://${extra.request.headers.host}`), { headers: forwardable(extra.request.headers) }),
    })),
    sockets,
  );
  const url = await listen(server);
  return {
    url: `${url}/graphql`,
    async stop() {
      await graphqlWs.dispose();
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
  /** A WebSocket upgrade, whose socket then went on to the target as it was. */
  upgrade: boolean;
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
    recorder.requests.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization ?? null, body, upgrade: false });
    if (recorder.unavailable) return void res.writeHead(503).end();
    try {
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers: forwardable(req.headers), body: body || undefined });
      res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding')));
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  });
  // A WebSocket upgrade is recorded, then its bytes go both ways between the client and the target.
  const tunnels = new Set<Duplex>();
  server.on('upgrade', (req, client: Duplex, head: Buffer) => {
    recorder.requests.push({ method: req.method!, path: req.url!, authorization: req.headers.authorization ?? null, body: '', upgrade: true });
    if (recorder.unavailable) return void client.end('HTTP/1.1 503 Service Unavailable\r\n\r\n');
    const { hostname, port } = new URL(target);
    const upstream: Socket = connect(Number(port), hostname, () => {
      const headers = req.rawHeaders.map((value, i) => (i % 2 === 0 ? `${value}: ` : `${value}\r\n`)).join('');
      upstream.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers}\r\n`);
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const end of [client, upstream]) {
      tunnels.add(end);
      end.on('error', () => (client.destroy(), upstream.destroy()));
      end.on('close', () => (tunnels.delete(end), client.destroy(), upstream.destroy()));
    }
  });
  const recorder: Recorder = {
    url: await listen(server),
    requests: [],
    unavailable: false,
    async stop() {
      for (const end of tunnels) end.destroy();
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
