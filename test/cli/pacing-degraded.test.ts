import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EXAMPLE, EXAMPLE_MANIFEST, ROOT } from "../helpers/example.js";
import { decodeOtlpJson } from "../helpers/otlp-json.js";
import { PROBE_HARNESS, raes } from "./cli.js";

// 50 ms per tick, drift bound 2 ticks (100 ms): an invocation that takes 400 ms makes the next step late.
const DRIFT = join(ROOT, "test", "fixtures", "raes-views", "pacing-drift-bound.sdl.yaml");
const CLOCK = "time.clock.scenario-clock";
const REF = `evidence:${EXAMPLE.policy}:pacing-loss:${CLOCK}:generation-1`;

describe("a real-time raes run that loses its pacing", () => {
  it("shows the service degraded in the timeline (raes history --html) and the exported spans", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-degraded-"));
    const bodies: string[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        bodies.push(body);
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const store = `sqlite:${join(dir, "cp.db")}`;
      const otlp = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
      const run = await raes(
        [
          "run",
          DRIFT,
          "--manifest",
          EXAMPLE_MANIFEST,
          "--runtime",
          PROBE_HARNESS,
          "--store",
          store,
          "--real-time",
          "--steps",
          "25",
          "--otlp",
          otlp,
        ],
        { env: { RAES_TEST_SLOW_MS: "400" } },
      );
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, new RegExp(`pacing lost on ${CLOCK.replaceAll(".", "\\.")}`));
      // The timeline lists the loss in the participant's section.
      const file = join(dir, "timeline.html");
      const history = await raes(["history", "--html", file, "--store", store]);
      assert.equal(history.code, 0, history.stderr);
      const page = readFileSync(file, "utf8");
      assert.match(page, /data-service-health="degraded" data-pacing-deviations="1"/);
      assert.ok(page.includes(`data-pacing-ref="${REF}"`), "the timeline names RAES's evidence ref");
      // And the service itself, as it reads back: still running, degraded.
      assert.match(page, /data-service="running" data-health="degraded" data-generation="1"/);
      // The spans: the loss itself, and the invocations after it, carry the degraded service.
      const spans = bodies.flatMap((body) => decodeOtlpJson(body));
      const loss = spans.filter((s) => s.name === `pacing_loss ${CLOCK}`);
      // One per late step, each naming the generation's one deviation.
      assert.ok(loss.length >= 1);
      for (const span of loss) {
        assert.equal(span.attributes["raes.service.health"], "degraded");
        assert.equal(span.attributes["raes.pacing.deviation_ref"], REF);
      }
      const health = spans
        .filter((s) => s.name.startsWith("invoke_agent "))
        .map((s) => s.attributes["raes.service.health"]);
      // Only a degraded service is marked: the invocations before the loss carry nothing.
      assert.equal(health[0], undefined);
      assert.equal(health.at(-1), "degraded");
      // The tool-action spans of an invocation of the degraded service carry it too.
      const last = spans.filter((s) => s.name.startsWith("invoke_agent ")).at(-1);
      const tools = spans.filter(
        (s) => s.name.startsWith("execute_tool ") && s.parentSpanId === last?.spanId,
      );
      assert.ok(tools.length >= 1);
      for (const tool of tools) assert.equal(tool.attributes["raes.service.health"], "degraded");
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
