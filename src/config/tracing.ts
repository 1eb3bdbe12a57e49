// The OpenTelemetry trace export, read from the standard environment variables (OpenTelemetry's
// "Environment Variable Specification" and "OTLP Exporter Configuration"). Without an endpoint, or with
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none, there are no traces (null): nothing is loaded and
// the requests pay nothing. Only the OTLP/HTTP protocols are offered; `grpc` is refused at start.

import type { TracingSettings } from '../service-config.js';
import { TracingEnvironmentSchema } from '../schemas/environment.js';

/** The variables read, each described (and defaulted) in src/schemas/environment.ts. */
export const TRACING_ENV = Object.keys(TracingEnvironmentSchema.properties);
const DEFAULT_SERVICE_NAME = TracingEnvironmentSchema.properties.OTEL_SERVICE_NAME.default as string;

/** The settings, or null when traces are off. A wrong value adds a problem naming the variable. */
export function tracingSettings(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): TracingSettings | null {
  const value = (name: string): string | undefined => {
    const text = env[name]?.trim();
    return text === undefined || text === '' ? undefined : text;
  };
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== undefined && exporter !== 'otlp') {
    problems.push(`OTEL_TRACES_EXPORTER: only "otlp" or "none", got ${JSON.stringify(exporter)}`);
    return null;
  }
  const tracesEndpoint = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const endpoint = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (tracesEndpoint === undefined && endpoint === undefined) return null;
  const url = tracesEndpoint ?? `${endpoint!.replace(/\/+$/, '')}/v1/traces`;
  const urlName = tracesEndpoint === undefined ? 'OTEL_EXPORTER_OTLP_ENDPOINT' : 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    problems.push(`${urlName}: an http:// or https:// URL, got ${JSON.stringify(url)}`);
    return null;
  }
  const protocolName =
    value('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') === undefined
      ? 'OTEL_EXPORTER_OTLP_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL';
  const protocol = value(protocolName) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    problems.push(
      `${protocolName}: "http/protobuf" or "http/json" (grpc is not offered), got ${JSON.stringify(protocol)}`,
    );
    return null;
  }
  const headers = {
    ...parseHeaders('OTEL_EXPORTER_OTLP_HEADERS', value('OTEL_EXPORTER_OTLP_HEADERS'), problems),
    ...parseHeaders('OTEL_EXPORTER_OTLP_TRACES_HEADERS', value('OTEL_EXPORTER_OTLP_TRACES_HEADERS'), problems),
  };
  return { url, protocol, serviceName: value('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME, headers };
}

/** `key1=value1,key2=value2`, values percent-decoded (the W3C Baggage format the specification names). */
function parseHeaders(name: string, text: string | undefined, problems: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  if (text === undefined) return headers;
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    const key = pair.slice(0, Math.max(0, at)).trim().toLowerCase();
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      decoded = undefined;
    }
    if (at <= 0 || !/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(key) || decoded === undefined || /[\r\n]/.test(decoded)) {
      problems.push(`${name}: key=value pairs separated by commas`);
      return {};
    }
    headers[key] = decoded;
  }
  return headers;
}
