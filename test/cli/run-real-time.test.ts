import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/index.js";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { PROBE_HARNESS, raes } from "./cli.js";

const REAL_TIME = join(ROOT, "test", "fixtures", "raes-views", "pacing-real-time.sdl.yaml");
const storeUrl = () => `sqlite:${join(mkdtempSync(join(tmpdir(), "raes-real-time-")), "cp.db")}`;
const args = (scenario: string, store: string, ...extra: string[]) => [
  "run",
  scenario,
  "--manifest",
  EXAMPLE_MANIFEST,
  "--runtime",
  PROBE_HARNESS,
  "--store",
  store,
  ...extra,
];

describe("raes run --real-time", () => {
  it("without --tick-ms takes the step period from the SDL clock (tick period 1/100 s: 10 ms) and runs to completion", async () => {
    const store = storeUrl();
    const run = await raes([...args(REAL_TIME, store, "--real-time", "--json")]);
    assert.equal(run.code, 0, run.stderr);
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.pacing.source, "clock");
    assert.equal(summary.pacing.tick_ms, 10);
    assert.equal(summary.pacing.bound_ms, 10);
    assert.equal(summary.pacing.ended, "schedulers_finished");
    assert.equal(summary.pacing.steps, 30);
    const opened = await openControlPlaneStore(store);
    const outer = (await opened.listEvents()).filter((e) => e.invocation_tool_context === undefined);
    assert.deepEqual(
      [...new Set(outer.map((e) => e.temporal_contexts[0]?.observation_point))],
      [0, 10, 20, 30].map((t) => `time.clock.scenario-clock@segment=0,tick=${t}`),
    );
    await opened.close();
  });

  it("on a stepped clock is refused before anything runs, naming the clock", async () => {
    const store = storeUrl();
    const run = await raes([...args(EXAMPLE_SCENARIO, store, "--real-time")]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /raes: runtime\.pacing-undeclared: no wall pacing is declared for time\.clock\.scenario-clock/,
    );
    const opened = await openControlPlaneStore(store).catch(() => undefined);
    assert.equal((await opened?.listEvents())?.length ?? 0, 0);
    await opened?.close();
  });
});
