import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { HistoryEvent } from "../../src/history/index.js";
import { decodePublicSeed, deriveStreamKey, rawBlock } from "../../src/random/index.js";
import { ROOT } from "../helpers/example.js";
import { readTrace, V2_EXAMPLE, V2_FIXTURES, V2_MANIFEST } from "../runtime/v2/trace.js";
import { raes } from "./cli.js";

const PROFILE = "blake3-xof-participant-v1";
const RUNTIMES = join(ROOT, "test", "fixtures", "runtimes");
const CONTROL = "green-activity-policy";

function runArgs(store: string, runtime: string, steps: number, controls: readonly string[]): string[] {
  return [
    "run",
    V2_EXAMPLE,
    "--manifest",
    V2_MANIFEST,
    "--runtime",
    join(RUNTIMES, runtime),
    "--store",
    store,
    "--steps",
    String(steps),
    ...controls.flatMap((c) => ["--stochastic-control", c]),
  ];
}

interface HistoryJson {
  readonly events: HistoryEvent[];
  readonly schedulers: { participant_address: string; lifecycle: string; continuation: unknown }[];
}

describe("raes run --stochastic-control (v2, end to end)", () => {
  it("runs the v2 example as RAES does: history and continuation equal RAES's seed-42 trace", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-run-v2-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const seed = "42".repeat(32);
    const run = await raes(
      [...runArgs(store, "every-kth.ts", 60, [`${CONTROL}=green-activity:${seed}`]), "--json"],
      { env: { RAES_TEST_FAIL_EVERY: "3" } },
    );
    assert.equal(run.code, 0, run.stderr);
    const expected = readTrace(join(V2_FIXTURES, "trace-seed42-fail3.jsonl"));
    assert.equal(JSON.parse(run.stdout).invocations, expected.length);
    const history = await raes(["history", "--store", store, "--json"]);
    assert.equal(history.code, 0, history.stderr);
    const { events, schedulers } = JSON.parse(history.stdout) as HistoryJson;
    const observed = events.filter((e) => e.event_type === "observation_emitted");
    assert.deepEqual(
      observed.map((e) => {
        const p = e.activity_provenance;
        return [
          e.action_instance_id,
          p?.timing_tick,
          p?.candidate_id,
          p?.timing_disposition,
          p?.burst_position,
          p?.predecessor_attempt_id,
          e.action_result?.status,
        ];
      }),
      expected.map((l) => [
        l.action_instance_id,
        l.tick,
        l.candidate_id,
        l.timing_disposition,
        l.burst_position,
        l.predecessor_attempt_id,
        l.result.status,
      ]),
    );
    const summary = JSON.parse(readFileSync(join(V2_FIXTURES, "trace-seed42-fail3.summary.json"), "utf8"));
    assert.equal(schedulers.length, 1);
    assert.deepEqual(schedulers[0]?.continuation, summary.final_state);
    assert.equal(schedulers[0]?.lifecycle, "completed");
    const text = await raes(["history", "--store", store]);
    assert.match(text.stdout, /retry of participant\.autonomous-execution\.[^\]]+:retry=0\]/);
    assert.match(
      text.stdout,
      /^continuation participant\.behavior\.participant-agent lifecycle_state=completed /m,
    );
  });

  it("a v2 policy without its control fails closed at open with the coded error, before any store exists", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-run-v2-"));
    const file = join(dir, "cp.db");
    const missing = await raes(runArgs(`sqlite:${file}`, "probe-harness.ts", 5, []));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^raes: runtime\.participant-activity-control-unbound: /m);
    assert.match(missing.stderr, /stochastic control green-activity-policy was not supplied/);
    const other = await raes(
      runArgs(`sqlite:${file}`, "probe-harness.ts", 5, [`another=green-activity:${"ab".repeat(32)}`]),
    );
    assert.equal(other.code, 1);
    assert.match(other.stderr, /runtime\.participant-activity-control-unbound/);
    assert.equal(existsSync(file), false, "nothing ran and nothing was stored");
    const seed = "c0ffee".repeat(10);
    const bad = await raes(
      runArgs(`sqlite:${file}`, "probe-harness.ts", 5, [`${CONTROL}=green-activity:${seed}`]),
    );
    assert.equal(bad.code, 2, "a malformed control is a usage error");
    assert.match(bad.stderr, /runtime\.participant-activity-control-invalid/);
    assert.ok(!bad.stderr.includes(seed), "the refusal does not echo the seed");
  });

  it("never lets the seed, the stream key or a raw block reach the store, history, logs or the HTML page", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-run-v2-secret-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const seed = "5eed".repeat(16);
    const control = `${CONTROL}=green-activity:${seed}`;
    const outputs: string[] = [];
    for (const json of [false, true]) {
      const run = await raes([
        ...runArgs(store, "probe-harness.ts", 20, [control]),
        ...(json ? ["--json"] : []),
      ]);
      assert.equal(run.code, 0, run.stderr);
      outputs.push(run.stdout, run.stderr);
    }
    const html = join(dir, "timeline.html");
    for (const args of [["--json"], [], ["--html", html]]) {
      const read = await raes(["history", "--store", store, ...args]);
      assert.equal(read.code, 0, read.stderr);
      outputs.push(read.stdout, read.stderr);
    }
    const { events } = JSON.parse(outputs[4] ?? "") as HistoryJson;
    assert.ok(events.length > 30 && events.every((e) => e.activity_provenance !== undefined));
    const operation = await raes(["operation", events[0]?.action_instance_id ?? "", "--store", store]);
    outputs.push(operation.stdout, operation.stderr);
    outputs.push(readFileSync(html, "utf8"));
    for (const f of readdirSync(dir))
      if (f.startsWith("cp.db")) outputs.push(readFileSync(join(dir, f)).toString("latin1"));
    const all = outputs.join("\n").toLowerCase();
    assert.ok(all.includes(CONTROL), "the control is named by its id");
    const key = deriveStreamKey(PROFILE, decodePublicSeed(seed));
    const secrets = [
      seed,
      Buffer.from(decodePublicSeed(seed)).toString("base64"),
      Buffer.from(key).toString("hex"),
      Buffer.from(key).toString("base64"),
    ];
    for (const e of events) {
      const address = e.activity_provenance?.random_address;
      assert.ok(address);
      for (const coordinate of [0, 1, 2]) {
        const block = rawBlock(PROFILE, key, { ...address, local_coordinate: coordinate });
        secrets.push(Buffer.from(block.subarray(0, 8)).toString("hex"));
      }
    }
    for (const secret of secrets)
      assert.ok(!all.includes(secret.toLowerCase()), `leaked ${secret.slice(0, 6)}…`);
  });
});
