// An OTLP/HTTP trace receiver for the tracing tests (not a test file): what a collector would get.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The fields of an exported span the tests look at; ids in lowercase hex, as in `traceparent`. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  /** The instrumentation that made it (`@opentelemetry/instrumentation-pg` …). */
  scope: string;
  /** The resource's `service.name`. */
  service: string;
}

/** Listens on 127.0.0.1 for POST /v1/traces in http/json or http/protobuf and keeps every span. */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** The Content-Type of each export received. */
  readonly contentTypes: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const type = req.headers['content-type'] ?? '';
        if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
        this.contentTypes.push(type);
        const body = Buffer.concat(chunks);
        this.spans.push(...(type === 'application/json' ? fromJson(JSON.parse(body.toString('utf8'))) : fromProtobuf(body)));
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : '');
      });
    });
    this.server.listen(0, '127.0.0.1');
    await new Promise((resolve) => this.server!.once('listening', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve(undefined));
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }
}

// http/json: the OTLP JSON mapping of ExportTraceServiceRequest, ids as hex strings.
function fromJson(request: any): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs: any) => {
    const service = rs.resource?.attributes?.find((a: any) => a.key === 'service.name')?.value?.stringValue ?? '';
    return (rs.scopeSpans ?? []).flatMap((ss: any) =>
      (ss.spans ?? []).map((s: any) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        kind: s.kind,
        scope: ss.scope?.name ?? '',
        service,
      })),
    );
  });
}

// http/protobuf: ExportTraceServiceRequest decoded from the wire format, only the fields above
// (opentelemetry/proto/collector/trace/v1 and trace/v1/trace.proto field numbers).
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return fieldsOf(body, 1).flatMap((resourceSpans) => {
    const resource = fieldsOf(resourceSpans, 1)[0];
    const attributes = resource ? fieldsOf(resource, 1) : [];
    const serviceName = attributes.find((kv) => text(kv, 1) === 'service.name');
    const service = serviceName ? text(fieldsOf(serviceName, 2)[0]!, 1) : '';
    return fieldsOf(resourceSpans, 2).flatMap((scopeSpans) => {
      const scopeField = fieldsOf(scopeSpans, 1)[0];
      const scope = scopeField ? text(scopeField, 1) : '';
      return fieldsOf(scopeSpans, 2).map((span) => ({
        traceId: hex(span, 1),
        spanId: hex(span, 2),
        parentSpanId: hex(span, 4),
        name: text(span, 5),
        kind: Number(varintsOf(span, 6)[0] ?? 0n),
        scope,
        service,
      }));
    });
  });
}

type Field = { field: number; bytes?: Buffer; varint?: bigint };

/** The fields of one protobuf message, in order (wire types varint, 64-bit, length-delimited, 32-bit). */
function decode(message: Buffer): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= message.length) throw new Error('truncated varint');
      const byte = message[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < message.length) {
    const key = Number(varint());
    const field = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ field, varint: varint() });
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = Number(varint());
      if (at + length > message.length) throw new Error('truncated field');
      fields.push({ field, bytes: message.subarray(at, at + length) });
      at += length;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return fields;
}

const fieldsOf = (message: Buffer, field: number) => decode(message).filter((f) => f.field === field && f.bytes).map((f) => f.bytes!);
const varintsOf = (message: Buffer, field: number) => decode(message).filter((f) => f.field === field && f.varint !== undefined).map((f) => f.varint!);
const text = (message: Buffer, field: number) => fieldsOf(message, field)[0]?.toString('utf8') ?? '';
const hex = (message: Buffer, field: number) => fieldsOf(message, field)[0]?.toString('hex') ?? '';
