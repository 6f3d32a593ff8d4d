import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RuntimeErrorCode, RuntimeManager } from "../../../src/index.js";
import { decodePublicSeed, deriveStreamKey } from "../../../src/random/index.js";
import { parseStochasticControl } from "../../../src/runtime/index.js";
import { EveryKthFails, v2Manifest } from "./harness.js";
import { compileFile, V2_EXAMPLE } from "./trace.js";

const SEED = "5eed".repeat(16);

describe("v2 run apparatus: stochastic controls", () => {
  it("a v2 policy without its control fails closed at open with a coded error", async () => {
    await assert.rejects(
      RuntimeManager.open({
        model: compileFile(V2_EXAMPLE),
        manifest: v2Manifest(),
        runtime: new EveryKthFails(0, "x"),
      }),
      { code: RuntimeErrorCode.activity_control_unbound },
    );
    await assert.rejects(
      RuntimeManager.open({
        model: compileFile(V2_EXAMPLE),
        manifest: v2Manifest(),
        runtime: new EveryKthFails(0, "x"),
        stochasticControls: [{ controlId: "another-control", namespace: "green-activity", publicSeed: SEED }],
      }),
      { code: RuntimeErrorCode.activity_control_unbound },
    );
  });

  it("refuses a malformed seed or namespace, and a control supplied twice, without echoing the seed", async () => {
    const open = (controls: { controlId: string; namespace: string; publicSeed: string }[]) =>
      RuntimeManager.open({
        model: compileFile(V2_EXAMPLE),
        manifest: v2Manifest(),
        runtime: new EveryKthFails(0, "x"),
        stochasticControls: controls,
      });
    const control = { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: SEED };
    for (const bad of [
      [{ ...control, publicSeed: "abc123" }],
      [{ ...control, namespace: "Not A Namespace" }],
      [control, control],
    ]) {
      await assert.rejects(open(bad), (error: Error & { code?: string }) => {
        assert.equal(error.code, RuntimeErrorCode.activity_control_invalid);
        assert.ok(!error.message.includes("abc123") && !error.message.includes(SEED));
        return true;
      });
    }
  });

  it("parses the CLI form ID=NAMESPACE:SEED and refuses anything else", () => {
    assert.deepEqual(parseStochasticControl(`green-activity-policy=green-activity:${SEED}`), {
      controlId: "green-activity-policy",
      namespace: "green-activity",
      publicSeed: SEED,
    });
    for (const bad of ["green=ns", `green:${SEED}`, `green=ns:${SEED}0`, `=ns:${SEED}`]) {
      assert.throws(() => parseStochasticControl(bad), { code: RuntimeErrorCode.activity_control_invalid });
    }
  });

  it("never writes the seed, the stream key or a raw block to the store or history", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v2-secret-"));
    const file = join(dir, "control-plane.db");
    const manager = await RuntimeManager.open({
      model: compileFile(V2_EXAMPLE),
      manifest: v2Manifest(),
      runtime: new EveryKthFails(3, "target_unavailable"),
      store: `sqlite:${file}`,
      stochasticControls: [
        { controlId: "green-activity-policy", namespace: "green-activity", publicSeed: SEED },
      ],
    });
    await manager.step(30);
    const events = await manager.history();
    const schedulers = manager.schedulers();
    await manager.close();
    assert.ok(events.length > 0 && events.every((e) => e.activity_provenance !== undefined));
    const key = Buffer.from(deriveStreamKey("blake3-xof-participant-v1", decodePublicSeed(SEED))).toString(
      "hex",
    );
    const files = [file, `${file}-wal`].filter((f) => existsSync(f));
    const bytes =
      files.map((f) => readFileSync(f).toString("latin1")).join("") + JSON.stringify({ events, schedulers });
    for (const secret of [SEED, SEED.toUpperCase(), key])
      assert.ok(!bytes.toLowerCase().includes(secret.toLowerCase()));
    assert.ok(bytes.includes("green-activity-policy"), "the control is named by its id");
  });
});
