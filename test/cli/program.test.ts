import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { Help } from "commander";
import { commandSummaries } from "../../src/cli/commands/index.js";
import { buildProgram } from "../../src/cli/program.js";
import { DEFAULT_STORE_URL as CLI_DEFAULT } from "../../src/cli/store-option.js";
import { DEFAULT_STORE_URL } from "../../src/store/index.js";
import { ROOT } from "../helpers/example.js";

/** The project modules a `raes` process loads for argv, as paths under src/ (a resolve hook lists them). */
function loadedModules(argv: readonly string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "raes-loaded-"));
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith("file:")) process.stderr.write("LOADED " + r.url + "\\n"); return r; }`,
  );
  const register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hooks).href)});`,
  );
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--import", register, join(ROOT, "src", "cli", "main.ts"), ...argv],
    { encoding: "utf8", cwd: ROOT },
  );
  assert.equal(result.status, 0, result.stderr);
  const src = `${pathToFileURL(join(ROOT, "src")).href}/`;
  return [
    ...new Set(
      result.stderr
        .split("\n")
        .filter((line) => line.startsWith(`LOADED ${src}`))
        .map((line) => line.slice(`LOADED ${src}`.length)),
    ),
  ];
}

describe("raes start-up loads only what the command needs", () => {
  it("lists every command from its summary exactly as the command itself reads", async () => {
    const program = await buildProgram([], true);
    const help = new Help();
    assert.deepEqual(
      Object.fromEntries(program.commands.map((c) => [c.name(), [help.subcommandTerm(c), c.description()]])),
      commandSummaries,
    );
  });

  it("raes --help and raes --version load no command and no store", () => {
    for (const argv of [["--help"], ["--version"]]) {
      assert.deepEqual(
        loadedModules(argv).sort(),
        ["cli/commands/index.ts", "cli/exit.ts", "cli/main.ts", "cli/program.ts"],
        argv.join(" "),
      );
    }
  });

  it("a read command's --help loads that command and no store", () => {
    for (const command of ["operations", "operation", "history", "resolve", "resume"]) {
      const loaded = loadedModules([command, "--help"]);
      assert.ok(loaded.includes(`cli/commands/${command}.ts`), command);
      assert.deepEqual(
        loaded.filter((path) => path.startsWith("store/") || path.startsWith("runtime/")),
        [],
        command,
      );
    }
  });

  it("the CLI's default store is the store's", () => {
    assert.equal(CLI_DEFAULT, DEFAULT_STORE_URL);
  });
});
