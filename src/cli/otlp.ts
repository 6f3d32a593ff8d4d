import { InvalidArgumentError } from "commander";
import { isPackageMissing } from "../records/index.js";
import { CliErrorCode } from "./exit.js";

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

/**
 * The optional packages `--otlp` loads, with the ranges package.json gives them as optional peer
 * dependencies (`docs/guide/tracing.md`); `@opentelemetry/api` is a dependency of raes-ts itself.
 */
export const OTLP_PACKAGES = {
  "@opentelemetry/exporter-trace-otlp-http": "^0.223.1",
  "@opentelemetry/resources": "^2.12.1",
  "@opentelemetry/sdk-trace-base": "^2.12.1",
} as const;

/** `--otlp` was given and a package of the OTLP exporter is not installed; nothing was exported. */
export class OtlpExporterMissingError extends Error {
  readonly code = CliErrorCode.otlp_exporter_missing;
  /** The packages that were not found. */
  readonly missing: readonly string[];
  constructor(missing: readonly string[]) {
    const install = Object.entries(OTLP_PACKAGES)
      .map(([name, range]) => `"${name}@${range}"`)
      .join(" ");
    super(
      `--otlp needs the OpenTelemetry exporter, optional packages that are not installed (${missing.join(", ")}): run npm install ${install}`,
    );
    this.name = "OtlpExporterMissingError";
    this.missing = missing;
  }
}

/** Turns the failed import of an exporter package that is not installed into `OtlpExporterMissingError`. */
function exporterMissing(error: unknown): never {
  const missing = Object.keys(OTLP_PACKAGES).filter((name) => isPackageMissing(error, name));
  if (missing.length === 0) throw error;
  throw new OtlpExporterMissingError(missing);
}

/** An installed OTLP exporter; `shutdown` flushes every span still buffered, then stops it. */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

/**
 * Installs the official OTLP/HTTP span exporter as the global tracer provider, so the spans the
 * runtime and the gateway make through `@opentelemetry/api` are exported. Loaded only when asked for:
 * the exporter's packages are optional, and without them this fails with `OtlpExporterMissingError`.
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
  ]).catch(exporterMissing);
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
