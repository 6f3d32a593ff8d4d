import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { openControlPlaneStore } from "../../src/store/open.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { startServe } from "../serve/console.js";
import { raes } from "./cli.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-serve-cli-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

async function emptyStore(name: string): Promise<string> {
  const url = `sqlite:${join(DIR, name)}`;
  await (await openControlPlaneStore(url)).close();
  return url;
}

describe("raes serve on the command line", () => {
  it("prints a URL that opens the console as printed, and stops with exit 0 on SIGTERM", async () => {
    const store = await emptyStore("printed.db");
    const serve = await startServe(["--store", store, "--listen", "127.0.0.1:0", "--operator", "carol"]);
    try {
      const page = await fetch(serve.printed);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /RAES operator console/);
      assert.equal((await fetch(serve.base)).status, 401);
      const state = await fetch(`${serve.base}api/state?token=${serve.token}`);
      assert.equal(((await state.json()) as { operator: string }).operator, "carol");
    } finally {
      assert.equal(await serve.stop(), 0);
    }
  });

  it("generates a fresh token each start", async () => {
    const store = await emptyStore("fresh.db");
    const first = await startServe(["--store", store, "--listen", "127.0.0.1:0"]);
    const firstToken = first.token;
    await first.stop();
    const second = await startServe(["--store", store, "--listen", "127.0.0.1:0"]);
    try {
      assert.notEqual(second.token, firstToken);
      assert.equal((await fetch(`${second.base}?token=${firstToken}`)).status, 401);
    } finally {
      await second.stop();
    }
  });

  it("uses the token of --token-file, and never prints it", async () => {
    const store = await emptyStore("token-file.db");
    const tokenFile = join(DIR, "token");
    const token = "a-token-from-a-file-0123456789";
    writeFileSync(tokenFile, `${token}\n`);
    // startServe waits for a printed ?token=VALUE; with a token file the URL ends at ?token=, so read it here.
    const child = spawn(
      process.execPath,
      cliNodeArgs(["serve", "--store", store, "--listen", "127.0.0.1:0", "--token-file", tokenFile]),
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const base = await new Promise<string>((resolve) =>
      child.stdout.on("data", (d) => {
        out += d;
        const found = /(http:\/\/\S+\/)\?token=/.exec(out);
        if (found?.[1]) resolve(found[1]);
      }),
    );
    try {
      assert.doesNotMatch(out, new RegExp(token));
      assert.equal((await fetch(`${base}?token=${token}`)).status, 200);
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  });

  it("refuses an address off loopback without --token-file, a bad --listen and a short token, exit 2", async () => {
    const store = await emptyStore("refusals.db");
    const remote = await raes(["serve", "--store", store, "--listen", "0.0.0.0:0"]);
    assert.equal(remote.code, 2);
    assert.match(
      remote.stderr,
      /^raes: cli\.usage: 0\.0\.0\.0 is not a loopback address; serving it needs --token-file/m,
    );
    const bad = await raes(["serve", "--store", store, "--listen", "nowhere"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--listen wants HOST:PORT/);
    const short = join(DIR, "short");
    writeFileSync(short, "abc\n");
    const weak = await raes(["serve", "--store", store, "--listen", "0.0.0.0:0", "--token-file", short]);
    assert.equal(weak.code, 2);
    assert.match(weak.stderr, /16 to 1024 characters/);
    const missing = await raes([
      "serve",
      "--store",
      `sqlite:${join(DIR, "absent.db")}`,
      "--listen",
      "127.0.0.1:0",
    ]);
    assert.equal(missing.code, 2);
  });
});
