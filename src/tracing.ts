import type { IncomingMessage } from 'node:http';

/**
 * OpenTelemetry traces, when OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per HTTP request (with
 * its request id and route), per Express handler, per PostgreSQL statement and per Redis command,
 * exported over OTLP/HTTP in batches. Imported first by each entry point, so the instrumentations
 * patch `http`, `express`, `pg` and `ioredis` before anything loads them. Without the variable
 * nothing here is loaded beyond this file: no SDK, no patching, no cost.
 *
 * The standard OTEL_* variables apply (OTEL_SERVICE_NAME, OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_TRACES_SAMPLER…). Query strings are cut from the spans: they carry filter values (e-mail
 * addresses) and cursors, which the request logs keep out too.
 */
export const tracing = start(process.env.OTEL_EXPORTER_OTLP_ENDPOINT);

interface Tracing {
  /** Sends the spans still buffered; at shutdown, before the process exits. */
  flush(): Promise<void>;
}

function start(endpoint: string | undefined): Tracing | undefined {
  if (!endpoint) return undefined;
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded only when tracing is on */
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { registerInstrumentations } = require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  /* eslint-enable @typescript-eslint/no-require-imports */

  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME ?? 'conversation-read-api' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // Probes every few seconds from every kubelet would bury the requests.
        ignoreIncomingRequestHook: (req) => (req.url ?? '').startsWith('/health/'),
        // Outgoing calls (webhook deliveries, the OTLP export itself) keep their spans; their URLs are an endpoint's.
        ignoreOutgoingRequestHook: (options) => String((options as { path?: string }).path ?? '').startsWith('/v1/traces'),
        requestHook: (span, request) => {
          const url = (request as IncomingMessage).url;
          if (url !== undefined) {
            const path = url.split('?')[0];
            span.setAttribute('http.target', path);
            span.setAttribute('url.path', path);
            span.setAttribute('url.query', '');
          }
        },
        applyCustomAttributesOnSpan: (span, request) => {
          const id = (request as IncomingMessage).requestId;
          if (id) span.setAttribute('http.request.id', id);
        },
      }),
      new ExpressInstrumentation(),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  return { flush: () => provider.forceFlush() };
}
