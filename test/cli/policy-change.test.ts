import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { EXAMPLE_SCENARIO } from "../helpers/example.js";
import { exampleRunArgs, raes } from "./cli.js";

describe("raes run on a store whose policy was edited", () => {
  it("is refused naming the policy, and --allow-policy-change starts a new segment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-policy-cli-"));
    const store = `sqlite:${join(dir, "cp.db")}`;
    const edited = join(dir, "edited.sdl.yaml");
    const text = readFileSync(EXAMPLE_SCENARIO, "utf8");
    writeFileSync(edited, text.replace("      failure_policy: stop\n", "      failure_policy: continue\n"));
    const first = await raes(exampleRunArgs(store, "--steps", "1"));
    assert.equal(first.code, 0, first.stderr);

    const withEdited = (...extra: string[]) => {
      const args = exampleRunArgs(store, "--steps", "1", ...extra);
      args[1] = edited;
      return raes(args);
    };
    const refused = await withEdited();
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /runtime\.participant-autonomous-state-conflict/);
    assert.match(refused.stderr, /participant\.autonomous-execution\.participant-behavior/);
    assert.match(refused.stderr, /--allow-policy-change/);

    const allowed = await withEdited("--allow-policy-change", "--json");
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.match(
      allowed.stderr,
      /policy changed \(participant\.autonomous-execution\.participant-behavior\)/,
    );
    const again = await withEdited();
    assert.equal(again.code, 0, "the edited policy is now the store's");
  });
});
