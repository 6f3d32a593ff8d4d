import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { codeOf, isPackageMissing } from "../../src/records/index.js";

const dir = mkdtempSync(join(tmpdir(), "raes-missing-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** What importing SPECIFIER from a module in `dir` throws. */
async function importFailure(specifier: string): Promise<unknown> {
  const importer = join(dir, `importer-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(importer, `export default await import(${JSON.stringify(specifier)});\n`);
  return import(pathToFileURL(importer).href).then(
    () => assert.fail(`${specifier} imported`),
    (error: unknown) => error,
  );
}

describe("codeOf and isPackageMissing", () => {
  it("codeOf reads a string code and nothing else", () => {
    assert.equal(codeOf(Object.assign(new Error("x"), { code: "store.missing" })), "store.missing");
    assert.equal(codeOf(Object.assign(new Error("x"), { code: 7 })), undefined);
    assert.equal(codeOf(undefined), undefined);
    assert.equal(codeOf(null), undefined);
  });

  it("a package that is not installed is missing by its own name, not by a prefix of it or another name", async () => {
    const error = await importFailure("raes-no-such-package");
    assert.equal(isPackageMissing(error, "raes-no-such-package"), true);
    assert.equal(isPackageMissing(error, "raes-no-such"), false);
    assert.equal(isPackageMissing(error, "pg"), false);
    assert.equal(isPackageMissing(await importFailure("@raes/no-such/sub"), "@raes/no-such"), true);
  });

  it("a package that is installed but fails to load, or a missing file, is not a missing package", async () => {
    // A package whose own import of another package fails: that other package is the missing one.
    const broken = join(dir, "node_modules", "raes-broken");
    mkdirSync(broken, { recursive: true });
    writeFileSync(
      join(broken, "package.json"),
      JSON.stringify({ name: "raes-broken", type: "module", main: "index.js" }),
    );
    writeFileSync(join(broken, "index.js"), 'import "raes-absent-inner";\n');
    const inner = await importFailure("raes-broken");
    assert.equal(isPackageMissing(inner, "raes-broken"), false);
    assert.equal(isPackageMissing(inner, "raes-absent-inner"), true);
    // A package that loads, then throws an error whose message only reads like a missing package.
    const throws = join(dir, "node_modules", "raes-throws");
    mkdirSync(throws, { recursive: true });
    writeFileSync(
      join(throws, "package.json"),
      JSON.stringify({ name: "raes-throws", type: "module", main: "index.js" }),
    );
    writeFileSync(
      join(throws, "index.js"),
      'throw Object.assign(new Error("Cannot find package \'x\' at load"), { code: "E_OTHER" });\n',
    );
    const thrown = await importFailure("raes-throws");
    assert.equal(codeOf(thrown), "E_OTHER");
    assert.equal(isPackageMissing(thrown, "x"), false);
    assert.equal(isPackageMissing(await importFailure("./no-such-file.mjs"), "no-such-file.mjs"), false);
    assert.equal(isPackageMissing("Cannot find package 'pg' ", "pg"), false);
  });
});
