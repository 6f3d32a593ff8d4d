import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readCodes, referencePages } from "../../scripts/docs-reference.js";
import { ROOT } from "../helpers/example.js";

describe("docs/reference/ is generated from the code", () => {
  it("each committed page equals what npm run docs:reference generates now", async () => {
    for (const [path, text] of await referencePages()) {
      const committed = readFileSync(join(ROOT, path), "utf8");
      assert.equal(committed, text, `${path} drifted from the code: run npm run docs:reference`);
    }
  });

  it("reads the port's refusal codes, each with its doc line", () => {
    const refusal = readCodes().objects.find((o) => o.name === "ParticipantToolActionRefusal");
    assert.ok(refusal, "ParticipantToolActionRefusal found");
    assert.ok(refusal.entries.some((e) => e.value === "request_invalid"));
    for (const e of refusal.entries) assert.notEqual(e.doc, "", `${e.key} has a doc line`);
  });

  it("lists every raes command on the CLI page", async () => {
    const cli = (await referencePages()).get("docs/reference/cli.md") ?? "";
    for (const name of ["validate", "compile", "manifest check", "run", "history", "operation", "operations"])
      assert.match(cli, new RegExp(`^## raes ${name}$`, "m"));
    for (const name of ["resolve", "resume", "mcp-gateway", "demo"])
      assert.match(cli, new RegExp(`^## raes ${name}$`, "m"));
  });
});
