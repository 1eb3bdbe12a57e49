// An OTLP/HTTP trace receiver for the tests (node:http on 127.0.0.1, port 0): it takes
// ExportTraceServiceRequest bodies in protobuf or JSON and gives back the spans, decoded by the few fields
// the tests read (opentelemetry-proto: trace/v1/trace.proto, common/v1/common.proto).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Record<string, string | number | boolean>;
  readonly serviceName: string | undefined;
  /** The Content-Type the exporter sent. */
  readonly contentType: string;
}

export interface OtlpReceiver {
  readonly url: string;
  spans(): readonly ReceivedSpan[];
  /** Paths posted to, in order. */
  paths(): readonly string[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const contentType = req.headers['content-type'] ?? '';
      const body = Buffer.concat(chunks);
      const decoded = contentType.startsWith('application/json') ? fromJson(body) : fromProtobuf(body);
      for (const span of decoded) spans.push({ ...span, contentType });
      const json = contentType.startsWith('application/json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    paths: () => paths,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Decoded = Omit<ReceivedSpan, 'contentType'>;

function fromJson(body: Buffer): Decoded[] {
  const document = JSON.parse(body.toString('utf8'));
  const out: Decoded[] = [];
  for (const resourceSpans of document.resourceSpans ?? []) {
    const resource = attributesOfJson(resourceSpans.resource?.attributes ?? []);
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        out.push({
          traceId: String(span.traceId).toLowerCase(),
          spanId: String(span.spanId).toLowerCase(),
          parentSpanId: String(span.parentSpanId ?? '').toLowerCase(),
          name: span.name,
          attributes: attributesOfJson(span.attributes ?? []),
          serviceName: resource['service.name'] as string | undefined,
        });
      }
    }
  }
  return out;
}

function attributesOfJson(list: readonly { key: string; value: Record<string, unknown> }[]) {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    const v = value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
    out[key] = typeof v === 'string' && value.intValue !== undefined ? Number(v) : (v as string | number | boolean);
  }
  return out;
}

/** The fields of a protobuf message: number → values (bytes for length-delimited, bigint for varints). */
function fields(bytes: Buffer): Map<number, (Buffer | bigint)[]> {
  const out = new Map<number, (Buffer | bigint)[]>();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new Error('truncated varint');
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('varint too long');
  };
  while (at < bytes.length) {
    const key = Number(varint());
    const number = key >> 3;
    let value: Buffer | bigint;
    switch (key & 7) {
      case 0:
        value = varint();
        break;
      case 1:
        value = bytes.subarray(at, at + 8);
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        value = bytes.subarray(at, at + length);
        at += length;
        break;
      }
      case 5:
        value = bytes.subarray(at, at + 4);
        at += 4;
        break;
      default:
        throw new Error(`wire type ${key & 7}`);
    }
    out.set(number, [...(out.get(number) ?? []), value]);
  }
  return out;
}

const messages = (map: Map<number, (Buffer | bigint)[]>, n: number): Buffer[] =>
  (map.get(n) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));

function attributesOfProtobuf(list: readonly Buffer[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const keyValue of list) {
    const kv = fields(keyValue);
    const key = messages(kv, 1)[0]?.toString('utf8') ?? '';
    const any = fields(messages(kv, 2)[0] ?? Buffer.alloc(0));
    const text = messages(any, 1)[0];
    const bool = any.get(2)?.[0];
    const int = any.get(3)?.[0];
    if (text !== undefined) out[key] = text.toString('utf8');
    else if (typeof bool === 'bigint') out[key] = bool === 1n;
    else if (typeof int === 'bigint') out[key] = Number(int);
  }
  return out;
}

function fromProtobuf(body: Buffer): Decoded[] {
  const out: Decoded[] = [];
  for (const resourceSpans of messages(fields(body), 1)) {
    const rs = fields(resourceSpans);
    const resource = attributesOfProtobuf(messages(fields(messages(rs, 1)[0] ?? Buffer.alloc(0)), 1));
    for (const scopeSpans of messages(rs, 2)) {
      for (const spanBytes of messages(fields(scopeSpans), 2)) {
        const span = fields(spanBytes);
        out.push({
          traceId: messages(span, 1)[0]?.toString('hex') ?? '',
          spanId: messages(span, 2)[0]?.toString('hex') ?? '',
          parentSpanId: messages(span, 4)[0]?.toString('hex') ?? '',
          name: messages(span, 5)[0]?.toString('utf8') ?? '',
          attributes: attributesOfProtobuf(messages(span, 9)),
          serviceName: resource['service.name'] as string | undefined,
        });
      }
    }
  }
  return out;
}
