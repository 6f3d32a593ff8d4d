import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../helpers/example.js";
import { V3_EXAMPLE, V3_MANIFEST } from "../runtime/v3/harness.js";
import { raes } from "./cli.js";

describe("raes run --agent-command with a v3 scenario", () => {
  it("is refused at open with runtime.resource-measurement-unsupported: an agent's exit status carries no measurement vector, and no store is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "raes-v3-agent-"));
    try {
      const db = join(dir, "cp.db");
      const run = await raes([
        "run",
        V3_EXAMPLE,
        "--manifest",
        V3_MANIFEST,
        "--agent-command",
        "true",
        "--mcp-upstream",
        "portal=true",
        "--map",
        join(ROOT, "test", "fixtures", "live", "map.yaml"),
        "--agent-logs",
        join(dir, "logs"),
        "--stochastic-control",
        `green-activity-policy=green-activity:${"42".repeat(32)}`,
        "--steps",
        "3",
        "--store",
        `sqlite:${db}`,
      ]);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /runtime\.resource-measurement-unsupported/);
      assert.match(run.stderr, /participant\.autonomous-execution\.participant-behavior: .*--runtime MODULE/);
      assert.equal(existsSync(db), false, "nothing was written");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
