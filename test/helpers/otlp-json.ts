// The OTLP/HTTP JSON bodies a test collector receives, decoded to what the CLI tests read.
/** One span as OTLP/JSON carries it, reduced to what the test reads. */
export interface Received {
  readonly service: string;
  readonly resource: Record<string, unknown>;
  readonly kind: number;
  readonly status: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  readonly events: { name: string; attributes: Record<string, unknown> }[];
}

type KeyValue = { key: string; value: Record<string, unknown> };
const anyValue = (value: Record<string, unknown>): unknown =>
  value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? value.arrayValue;
const attributesOf = (list: KeyValue[] = []) =>
  Object.fromEntries(list.map(({ key, value }) => [key, anyValue(value)]));

/** Decodes an OTLP/HTTP JSON export request (ExportTraceServiceRequest). */
export function decodeOtlpJson(body: string): Received[] {
  const request = JSON.parse(body) as {
    resourceSpans: {
      resource: { attributes: KeyValue[] };
      scopeSpans: {
        spans: {
          traceId: string;
          spanId: string;
          parentSpanId?: string;
          name: string;
          kind: number;
          status?: { code?: number };
          attributes: KeyValue[];
          events?: { name: string; attributes: KeyValue[] }[];
        }[];
      }[];
    }[];
  };
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        service: String(attributesOf(rs.resource.attributes)["service.name"]),
        resource: attributesOf(rs.resource.attributes),
        kind: s.kind,
        status: s.status?.code ?? 0,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        attributes: attributesOf(s.attributes),
        events: (s.events ?? []).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
      })),
    ),
  );
}
