import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ManifestDiagnosticCode as Code, checkManifest } from "../../src/index.js";
import { v2Manifest } from "../runtime/v2/harness.js";
import { compileFile, V2_EXAMPLE } from "../runtime/v2/trace.js";
import { ACTIVITY_FEATURES, activityCases, type Json } from "./activity-cases.js";

const model = compileFile(V2_EXAMPLE);
const codes = (manifest: Json) => checkManifest(manifest, model).diagnostics.map((d) => d.code);

function edited(change: (runtime: Json) => void): Json {
  const manifest = v2Manifest() as Json;
  change(manifest.participant_runtime);
  return manifest;
}

const without = (list: string[], value: string) => list.filter((v) => v !== value);

describe("v2 manifest admission (exactly RAES's, one code per missing capability)", () => {
  it("harness-backend-v2.manifest.json admits the v2 example", () => {
    const check = checkManifest(v2Manifest(), model);
    assert.deepEqual(check.diagnostics, []);
    assert.equal(check.ok, true);
  });

  for (const [name, change, code] of activityCases) {
    it(`refuses with ${code}: ${name}`, () => assert.deepEqual(codes(edited(change)), [code]));
  }

  for (const feature of ACTIVITY_FEATURES) {
    it(`refuses with ${Code.activity_feature_unsupported} without ${feature}`, () => {
      const manifest = edited((r) => {
        r.supported_autonomous_activity_features = without(r.supported_autonomous_activity_features, feature);
      });
      const found = checkManifest(manifest, model).diagnostics;
      assert.deepEqual(
        found.map((d) => d.code),
        [Code.activity_feature_unsupported],
      );
      assert.match(found[0]?.message ?? "", new RegExp(feature));
    });
  }
});
