import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readCodes } from "../../scripts/docs-reference.js";
import { ROOT } from "../helpers/example.js";

/** The code objects of RAES's own issue codes, spelled as RAES spells them (docs/reference/codes.md). */
const RAES_FAMILY = new Set(["DiagnosticCode", "RegistrationErrorCode"]);
const DOMAIN_CODE = /^([a-z0-9-]+)\.[a-z0-9.-]+$/;

describe("docs/reference/codes.md", () => {
  it("names every domain of raes-ts's own codes in its table of domains", () => {
    const { objects } = readCodes();
    const domainOf = (value: string) => DOMAIN_CODE.exec(value)?.[1];
    const raes = new Set(
      objects
        .filter((o) => RAES_FAMILY.has(o.name))
        .flatMap((o) => o.entries.map((e) => domainOf(e.value)))
        .filter((d) => d !== undefined),
    );
    const own = new Set(
      objects
        .filter((o) => !RAES_FAMILY.has(o.name))
        .flatMap((o) => o.entries.map((e) => domainOf(e.value)))
        .filter((d): d is string => d !== undefined && !raes.has(d)),
    );
    assert.ok(own.has("store") && own.has("approval"), [...own].join(", "));
    const page = readFileSync(join(ROOT, "docs", "reference", "codes.md"), "utf8");
    for (const domain of own)
      assert.match(
        page,
        new RegExp(`^\\| \`${domain}\` \\|`, "m"),
        `codes.md has no row for the domain ${domain}`,
      );
  });
});
