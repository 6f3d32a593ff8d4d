/**
 * The soak's plot: per-invocation cost and RSS over invocations, one line per store, drawn as a
 * Vega-Lite chart, rendered to SVG by Vega (no browser, no canvas) and to PNG by resvg.
 */
import { Resvg } from "@resvg/resvg-js";
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

/** One point of the plot: after `invocations` invocations on `store`. */
export interface PlotPoint {
  readonly store: string;
  readonly invocations: number;
  /** Wall microseconds per invocation over the step that ended here. */
  readonly costUs: number;
  /** Resident set size after a full collection, MiB. */
  readonly rssMiB: number;
}

function panel(field: keyof PlotPoint, title: string) {
  return {
    width: 640,
    height: 220,
    mark: { type: "line" as const, strokeWidth: 1.5 },
    encoding: {
      x: { field: "invocations", type: "quantitative" as const, title: "invocations" },
      y: { field, type: "quantitative" as const, title, scale: { zero: true } },
      color: { field: "store", type: "nominal" as const, title: "store" },
    },
  };
}

/** The PNG of the plot. */
export async function soakPlot(points: readonly PlotPoint[], title: string): Promise<Buffer> {
  const spec: TopLevelSpec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    background: "white",
    data: { values: points.map((p) => ({ ...p })) },
    vconcat: [panel("costUs", "µs per invocation (wall, per step)"), panel("rssMiB", "RSS after GC (MiB)")],
    config: { font: "DejaVu Sans" },
  };
  const view = new View(parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  const png = new Resvg(svg, {
    fitTo: { mode: "zoom", value: 1.5 },
    font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" },
  });
  return png.render().asPng();
}
