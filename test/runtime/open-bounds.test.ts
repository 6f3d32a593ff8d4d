import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import { exampleManifest, exampleModel } from "../helpers/example.js";
import { RecordingRuntime } from "./harnesses.js";

/** A store that records every property read, so a refusal can be shown to touch no store. */
function watchedStore(): { store: never; touched: (string | symbol)[] } {
  const touched: (string | symbol)[] = [];
  const store = new Proxy(
    {},
    {
      get: (_target, property) => {
        touched.push(property);
        return undefined;
      },
    },
  );
  return { store: store as never, touched };
}

describe("RuntimeManager.open bounds its parsed values before any work", () => {
  it("refuses a 3.5 MB manifest value as runtime.manifest-invalid naming manifest.value-too-large", async () => {
    const manifest = exampleManifest();
    const offer = manifest.participant_runtime.execution_bindings[0];
    manifest.participant_runtime.execution_bindings = Array.from({ length: 4_400 }, () => offer);
    assert.ok(JSON.stringify(manifest).length > 3_500_000);
    const { store, touched } = watchedStore();
    await assert.rejects(
      RuntimeManager.open({ model: exampleModel(), manifest, runtime: new RecordingRuntime(), store }),
      (error: { code?: string; details?: readonly string[] }) =>
        error.code === "runtime.manifest-invalid" &&
        (error.details ?? []).some((line) => line.startsWith("manifest.value-too-large")),
    );
    assert.deepEqual(touched, []);
  });

  it("refuses a model too deep or too large as runtime.model-too-large", async () => {
    let deep: unknown = 1;
    for (let level = 0; level < 300; level++) deep = [deep];
    const large = "x".repeat(16_000_001);
    for (const extra of [deep, large]) {
      const model = { ...exampleModel(), extra } as never;
      const { store, touched } = watchedStore();
      await assert.rejects(
        RuntimeManager.open({ model, manifest: exampleManifest(), runtime: new RecordingRuntime(), store }),
        (error: { code?: string }) => error.code === "runtime.model-too-large",
      );
      assert.deepEqual(touched, []);
    }
  });
});
