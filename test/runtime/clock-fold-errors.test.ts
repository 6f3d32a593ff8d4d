import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RuntimeManager } from "../../src/index.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { exampleManifest, modelWithParticipants } from "../helpers/example.js";
import { RecordingRuntime } from "./harnesses.js";

/** The store, whose next `openInvocation` fails (nothing written) once `failNextOpen` is set. */
function failingOpen(inner: ControlPlaneStore): { store: ControlPlaneStore; failNextOpen: () => void } {
  let fail = false;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property !== "openInvocation") return value.bind(target);
      return (...args: unknown[]) => {
        if (fail) {
          fail = false;
          return Promise.reject(new StoreUnavailableError("the store went away"));
        }
        return (value as (...a: unknown[]) => Promise<void>).apply(target, args);
      };
    },
  });
  return { store, failNextOpen: () => (fail = true) };
}

describe("a step whose clock moved elsewhere after a participant's open failed", () => {
  for (const concurrency of [1, 2]) {
    it(`still reports that participant's failure (concurrency ${concurrency})`, async () => {
      const model = modelWithParticipants(3, 1_000);
      const manifest = exampleManifest();
      manifest.participant_runtime.max_autonomous_participants = 3;
      const shared = new MemoryControlPlaneStore();
      const { store, failNextOpen } = failingOpen(shared);
      const open = (ownerId: string, s: ControlPlaneStore) =>
        RuntimeManager.open({
          model,
          manifest,
          runtime: new RecordingRuntime(),
          store: s,
          ownerId,
          log: () => {},
        });
      const a = await open("host-a", store);
      const b = await open("host-b", shared);
      for (const m of [a, b, a, b]) await m.step();
      assert.ok(a.share().owned >= 2, "a runs at least two participants");
      // b steps further, so a's prediction is stale; a's first open (the carrier) fails outright.
      await b.step(2);
      failNextOpen();
      await assert.rejects(a.step(1, { concurrency }), (error: unknown) => {
        const errors = error instanceof AggregateError ? error.errors : [error];
        return errors.some((e) => String(e).includes("the store went away"));
      });
      await a.close();
      await b.close();
    });
  }
});
