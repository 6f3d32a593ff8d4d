import assert from "node:assert/strict";
import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { LOGIN_PATH, startPortalService } from "../../src/demo/index.js";
import { ChildStdioTransport } from "../helpers/child-stdio.js";
import { demoMapWith } from "../helpers/demo-gateway.js";
import { ROOT } from "../helpers/example.js";

// One packed install for the whole file: raes-ts in a project's node_modules with its bin linked
// as npm links it, and no `raes` on PATH, as after `npm ci` in a project that depends on it.
const project = mkdtempSync(join(tmpdir(), "raes-printed-"));
const installed = join(project, "node_modules", "raes-ts");
const P = "participant.behavior.participant-agent";

/** PATH without any folder that holds a `raes`, with this node (and its npx) first. */
const PATH = [
  dirname(process.execPath),
  ...(process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && statSync(join(dir, "raes"), { throwIfNoEntry: false }) === undefined),
].join(delimiter);

/** Runs a command line with /bin/sh in the project, exactly as a person pastes it. */
function sh(command: string): SpawnSyncReturns<string> {
  return spawnSync("/bin/sh", ["-c", command], {
    cwd: project,
    encoding: "utf8",
    timeout: 180_000,
    env: { ...process.env, PATH, RAES_STORE: "" },
  });
}

/** The commands a run printed for a person: every line (or `history:` value) that starts with npx raes. */
function printedCommands(output: string): string[] {
  return output
    .split("\n")
    .map((line) => line.trim().replace(/^history: /, ""))
    .filter((line) => line.startsWith("npx raes "));
}

/** The one printed command that contains `part`. */
function command(commands: readonly string[], part: string): string {
  const found = commands.filter((c) => c.includes(part));
  assert.equal(found.length, 1, `${part} in:\n${commands.join("\n")}`);
  return found[0] as string;
}

/** Pastes a printed command and expects exit 0. */
function runs(printed: string): SpawnSyncReturns<string> {
  const result = sh(printed);
  assert.equal(result.status, 0, `${printed}\n${result.stdout}${result.stderr}`);
  return result;
}

/** The commands in the timeline page's <code> cells, as a person copies them. */
function pageCommands(file: string): string[] {
  const html = readFileSync(join(project, file), "utf8");
  return [...html.matchAll(/<code[^>]*data-effect="[a-z]+"[^>]*>([^<]+)<\/code>/g)].map((m) =>
    (m[1] ?? "")
      .replaceAll("&#39;", "'")
      .replaceAll("&quot;", '"')
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&"),
  );
}

before(() => {
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", project], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(pack.status, 0, pack.stderr);
  const [info] = JSON.parse(pack.stdout) as { filename: string }[];
  assert.ok(info);
  mkdirSync(installed, { recursive: true });
  const untar = spawnSync("tar", [
    "xzf",
    join(project, info.filename),
    "-C",
    installed,
    "--strip-components=1",
  ]);
  assert.equal(untar.status, 0, String(untar.stderr));
  symlinkSync(join(ROOT, "node_modules"), join(installed, "node_modules"), "dir");
  // What npm does for the package's "bin": an executable linked into the project's node_modules/.bin.
  const main = join(installed, "dist", "cli", "main.js");
  chmodSync(main, 0o755);
  mkdirSync(join(project, "node_modules", ".bin"));
  symlinkSync("../raes-ts/dist/cli/main.js", join(project, "node_modules", ".bin", "raes"));
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "printed-user", private: true, dependencies: { "raes-ts": "0.1.0" } }),
  );
  assert.notEqual(sh("command -v raes").status, 0, "no raes on PATH");
});
after(() => rmSync(project, { recursive: true, force: true }));

describe("every printed command runs as printed with /bin/sh, raes-ts installed in the project only", () => {
  it("demo: its history, resolve and resume commands start with npx raes and exit 0", () => {
    const demo = sh("npx raes demo");
    assert.equal(demo.status, 1, demo.stderr);
    const printed = printedCommands(demo.stdout);
    assert.ok(printed.length >= 4, demo.stdout);
    assert.doesNotMatch(demo.stdout + demo.stderr, /^\s*raes (resolve|resume|history)|[A-Z_]+=</m);
    runs(command(printed, " history "));
    runs(command(printed, "--effect confirmed"));
    // The demo's stop is on its last attempt, so the resume completes the scheduler.
    const resumed = runs(command(printed, " resume "));
    assert.match(resumed.stdout, /completed: its max_action_attempts is used up/);
  });

  it("resume refused, the timeline page and operations --needs-operator: each printed command exits 0", () => {
    const demo = sh("npx raes demo");
    assert.equal(demo.status, 1, demo.stderr);
    const refused = sh(command(printedCommands(demo.stdout), " resume "));
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^raes: runtime\.unresolved-indeterminate-actions: /m);
    const fromRefusal = printedCommands(refused.stderr);
    assert.equal(fromRefusal.length, 3, refused.stderr);
    const waiting = sh("npx raes operations --needs-operator --store sqlite:.raes/demo.db");
    assert.equal(waiting.status, 0, waiting.stderr);
    const fromListing = printedCommands(waiting.stdout);
    assert.equal(fromListing.length, 2, waiting.stdout);
    const page = pageCommands(".raes/demo.html");
    assert.ok(page.length >= 2, "the page prints resolve commands");
    for (const c of page) assert.match(c, /^npx raes resolve /);
    // One decision, given by each of the three: the first records it, the others find it recorded.
    runs(command(fromListing, "--effect absent"));
    runs(
      command(
        page.filter((c) => c.includes("--effect absent")),
        "--effect absent",
      ),
    );
    runs(command(fromRefusal, "--effect absent"));
    runs(command(fromRefusal, " resume "));
  });

  it("serve: the URL it prints opens the console as printed, and SIGTERM stops it", async () => {
    if (statSync(join(project, ".raes", "demo.db"), { throwIfNoEntry: false }) === undefined)
      sh("npx raes demo");
    // Its own process group, so the signal reaches raes under npx.
    const child = spawn(
      "/bin/sh",
      ["-c", "npx raes serve --store sqlite:.raes/demo.db --listen 127.0.0.1:0"],
      {
        cwd: project,
        env: { ...process.env, PATH, RAES_STORE: "" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let out = "";
    const printed = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        const url = /http:\/\/\S+\?token=\S+/.exec(out)?.[0];
        if (url) resolve(url);
      });
      void exited.then(() => reject(new Error(`raes serve ended before printing its URL: ${out}`)));
    });
    try {
      const page = await fetch(printed);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /RAES operator console/);
    } finally {
      process.kill(-(child.pid as number), "SIGTERM");
      await exited;
    }
  });

  it("run: a stop prints its next steps, and they run", () => {
    const E = "node_modules/raes-ts/examples";
    const run = sh(
      `npx raes run ${E}/enterprise-participant-evidence-loop.sdl.yaml --manifest ${E}/harness-backend.manifest.json --runtime ${E}/demo/harness-runtime.ts --steps 2 --store sqlite:.raes/run.db`,
    );
    assert.equal(run.status, 1, run.stderr);
    assert.match(
      run.stdout,
      new RegExp(`^stopped: ${P.replace(/\./g, "\\.")} \\(tool_action_indeterminate\\)$`, "m"),
    );
    const printed = printedCommands(run.stdout);
    assert.equal(printed.length, 3, run.stdout);
    runs(command(printed, "--effect confirmed"));
    runs(command(printed, " resume "));
  });
  it("a call held for approval: the approve and deny commands that the gateway and operations --needs-operator print run as printed", async () => {
    const E = join(installed, "examples");
    writeFileSync(join(project, "held-map.yaml"), demoMapWith("    approval: required\n"));
    const portal = await startPortalService();
    /** A host-mode gateway of the installed package, started in the project, on its own store. */
    const hold = async (store: string) => {
      const transport = new ChildStdioTransport(
        process.execPath,
        [
          join(installed, "dist", "cli", "main.js"),
          "mcp-gateway",
          "--scenario",
          join(E, "enterprise-participant-evidence-loop.sdl.yaml"),
          "--manifest",
          join(E, "harness-backend.manifest.json"),
          "--map",
          "held-map.yaml",
          "--store",
          store,
          "--",
          process.execPath,
          join(installed, "dist", "demo", "server.js"),
        ],
        { PATH, DEMO_PORTAL_URL: portal.url },
        project,
        { keepStderr: true },
      );
      const client = new Client({ name: "printed-commands", version: "1.0.0" });
      await client.connect(transport);
      const answer = client.callTool({ name: "probe_login", arguments: { path: LOGIN_PATH } }, undefined, {
        timeout: 120_000,
      });
      // Bounded, so a gateway that never holds the call fails the test instead of hanging it.
      for (let round = 0; round < 2400 && !/holding probe_login/.test(transport.stderr); round += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      const logged = printedCommands(
        transport.stderr
          .replace(/^.*holding probe_login \(\S+\) for approval: /m, "")
          .replace("  (or: ", "\n"),
      ).map((c) => c.replace(/\)$/, ""));
      return { client, transport, answer, logged };
    };
    try {
      const approved = await hold("sqlite:.raes/held-approve.db");
      assert.equal(approved.logged.length, 2, approved.transport.stderr);
      const listed = sh("npx raes operations --needs-operator --store sqlite:.raes/held-approve.db");
      assert.equal(listed.status, 0, listed.stderr);
      const fromListing = printedCommands(listed.stdout);
      assert.equal(fromListing.length, 2, listed.stdout);
      runs(command(approved.logged, " approve "));
      runs(command(fromListing, " approve "));
      const ran = await approved.answer;
      assert.notEqual(ran.isError, true, JSON.stringify(ran));
      await approved.transport.close();

      const denied = await hold("sqlite:.raes/held-deny.db");
      runs(command(denied.logged, " deny "));
      const withheld = await denied.answer;
      assert.equal(withheld.isError, true, JSON.stringify(withheld));
      await denied.transport.close();
      assert.deepEqual(
        portal.requests(),
        { [LOGIN_PATH]: 1 },
        "the approved call ran once, the denied one never",
      );
    } finally {
      await portal.close();
    }
  });
});
