import { InvalidArgumentError } from "commander";

/** Parses `--otlp URL`: an http(s) base URL of an OTLP/HTTP receiver (spans go to URL/v1/traces). */
export function otlpUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError("use an http:// or https:// URL, e.g. http://localhost:4318");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new InvalidArgumentError("use an http:// or https:// URL, e.g. http://localhost:4318");
  return value;
}

/** Where the spans of `--otlp BASE` are POSTed: the OTLP/HTTP traces path under the base URL. */
export function otlpTracesUrl(base: string): string {
  return `${base.replace(/\/+$/, "")}/v1/traces`;
}

/** An installed OTLP exporter; `shutdown` flushes every span still buffered, then stops it. */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

/**
 * Installs the official OTLP/HTTP span exporter as the global tracer provider, so the spans the
 * runtime and the gateway make through `@opentelemetry/api` are exported. Loaded only when asked for.
 *
 * The resource is the SDK's default (`telemetry.sdk.*`) with `service.name`, and then what
 * `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_SERVICE_NAME` say, as an SDK configured from the environment
 * reads them. No process or host detector runs: a command line can hold a store URL's password.
 */
export async function installOtlp(base: string, serviceName: string): Promise<OtlpExport> {
  const [{ trace }, { OTLPTraceExporter }, resources, sdk] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/sdk-trace-base"),
  ]);
  const exporter = new OTLPTraceExporter({ url: otlpTracesUrl(base), timeoutMillis: 5_000 });
  const provider = new sdk.BasicTracerProvider({
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes({ "service.name": serviceName }))
      .merge(resources.detectResources({ detectors: [resources.envDetector] })),
    spanProcessors: [new sdk.BatchSpanProcessor(exporter)],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    shutdown: async () => {
      await provider.shutdown().catch((error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        process.stderr.write(
          `raes: the spans could not all be exported to ${otlpTracesUrl(base)}: ${message}\n`,
        );
      });
      trace.disable();
    },
  };
}
