import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { decisionTime, listOperatorWaits } from "../../src/operations/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { exampleRunArgs, raes } from "../cli/cli.js";
import { ChildStdioTransport } from "../helpers/child-stdio.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { EXAMPLE_MANIFEST, EXAMPLE_SCENARIO, ROOT } from "../helpers/example.js";
import { invocation, scheduler, toolAction } from "../store/records.js";

/** The example manifest allowing all six of RAES's execution controls (docs/guide/operations.md). */
export function controlledManifest(): string {
  const manifest = JSON.parse(readFileSync(EXAMPLE_MANIFEST, "utf8"));
  manifest.participant_runtime.supports_execution_control = true;
  manifest.participant_runtime.supported_execution_control_actions = [
    "start",
    "pause",
    "resume",
    "drain",
    "reset",
    "teardown",
  ];
  const path = join(mkdtempSync(join(tmpdir(), "raes-serve-manifest-")), "manifest.json");
  writeFileSync(path, JSON.stringify(manifest));
  return path;
}

/**
 * `raes run` of the shared example in its own process, with the probe harness reporting its one tool
 * call's effects unknown: the participant stops with one indeterminate action (its id is returned)
 * and a history of real events. `controlled`: its manifest allows the execution controls.
 */
export async function runToIndeterminate(
  store: string,
  options: { readonly controlled?: boolean } = {},
): Promise<{ id: string; participant: string }> {
  const args = exampleRunArgs(store);
  if (options.controlled) args[args.indexOf(EXAMPLE_MANIFEST)] = controlledManifest();
  const run = await raes(args, { env: { RAES_TEST_MODE: "unknown" } });
  const id = /resolve (\S+:tool=\d+) --effect confirmed/.exec(run.stdout)?.[1];
  const participant = /stopped: (\S+) \(tool_action_indeterminate\)/.exec(run.stdout)?.[1];
  if (run.code !== 1 || id === undefined || participant === undefined)
    throw new Error(`raes run did not stop on an indeterminate action:\n${run.stdout}\n${run.stderr}`);
  return { id, participant };
}

/** Inserts `count` indeterminate, unresolved tool actions of one invocation through the store's own API. */
export async function indeterminateActions(
  store: string,
  count: number,
  invocationId = "inv-bulk",
): Promise<string[]> {
  const opened = await openControlPlaneStore(store);
  try {
    const inv = invocation({ id: invocationId, participantAddress: "participant:bulk" });
    await opened.openInvocation(inv, scheduler({ participantAddress: "participant:bulk", attempts: 1 }));
    const ids: string[] = [];
    for (let n = 1; n <= count; n += 1) {
      const action = toolAction(inv, n, { phase: "settled", settlement: "indeterminate" });
      await opened.insertToolAction(action);
      ids.push(action.id);
    }
    return ids;
  } finally {
    await opened.close();
  }
}

/**
 * Inserts `count` calls held for approval (admitted, approval pending for 300 s) of one invocation,
 * through the store's own API, as a gateway writes them.
 */
export async function heldCalls(store: string, count: number, invocationId = "inv-held"): Promise<string[]> {
  const opened = await openControlPlaneStore(store);
  try {
    const now = decisionTime(new Date());
    const inv = invocation({ id: invocationId, participantAddress: "participant:held", createdAt: now });
    await opened.openInvocation(inv, scheduler({ participantAddress: "participant:held", attempts: 1 }));
    const ids: string[] = [];
    for (let n = 1; n <= count; n += 1) {
      const action = toolAction(inv, n, {
        admittedAt: now,
        createdAt: now,
        updatedAt: now,
        approval: { state: "pending", requestedAt: now, timeoutSeconds: 300 },
      });
      await opened.insertToolAction(action);
      ids.push(action.id);
    }
    return ids;
  } finally {
    await opened.close();
  }
}

/** A `raes serve` process and the URL it printed. */
export interface ServeProcess {
  /** The URL as printed, token included. */
  readonly printed: string;
  /** `http://HOST:PORT/`. */
  readonly base: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `raes serve ARGS` from source and waits for the URL it prints. */
export function startServe(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, cliNodeArgs(["serve", ...args]), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (d) => {
      stdout += d;
      const printed = /(http:\/\/\S+\?token=(\S+))/.exec(stdout);
      if (!printed) return;
      const [, url = "", token = ""] = printed;
      resolve({
        printed: url,
        base: url.slice(0, url.indexOf("?")),
        token,
        child,
        stderr: () => stderr,
        stop: async () => {
          child.kill("SIGTERM");
          return exited;
        },
      });
    });
    void exited.then((code) =>
      reject(new Error(`raes serve exited ${code} before printing a URL:\n${stdout}\n${stderr}`)),
    );
  });
}

/** The demo map with every `probe_login` call held for an operator (`approval: required`). */
function heldMap(dir: string): string {
  const demo = readFileSync(join(ROOT, "examples", "demo", "mcp-map.yaml"), "utf8");
  const held = demo.replace(
    /(evidence_refs: \[content\.participant-observation\]\n)/,
    "$1    approval: required\n",
  );
  if (held === demo) throw new Error("the demo map changed shape: no probe_login entry to hold");
  const path = join(dir, "held-map.yaml");
  writeFileSync(path, held);
  return path;
}

/**
 * A real `raes mcp-gateway` (host mode, built CLI) over the demo MCP server (built), its map holding
 * every `probe_login` call for approval, with an MCP client (the agent) connected to it. The demo
 * server calls the portal at `portalUrl`, which counts what reached it.
 */
export async function heldGateway(
  dir: string,
  store: string,
  portalUrl: string,
): Promise<{ client: Client; transport: ChildStdioTransport }> {
  const transport = new ChildStdioTransport(
    process.execPath,
    [
      join(ROOT, "dist", "cli", "main.js"),
      "mcp-gateway",
      "--scenario",
      EXAMPLE_SCENARIO,
      "--manifest",
      EXAMPLE_MANIFEST,
      "--map",
      heldMap(dir),
      "--store",
      store,
      "--",
      process.execPath,
      join(ROOT, "dist", "demo", "server.js"),
    ],
    { PATH: process.env.PATH ?? "", DEMO_PORTAL_URL: portalUrl },
    tmpdir(),
    { keepStderr: true },
  );
  const client = new Client({ name: "serve-approvals-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** The id of the newest call held for approval once a gateway wrote it, read from the store (bounded). */
export async function pendingApproval(store: string, not: readonly string[] = []): Promise<string> {
  const opened = await openControlPlaneStore(store);
  try {
    for (let round = 0; round < 2400; round += 1) {
      const waits = await listOperatorWaits(opened, { limit: 10 });
      const held = waits.find((w) => w.need === "pending_approval" && !not.includes(w.entry.id));
      if (held) return held.entry.id;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await opened.close();
  }
  throw new Error("no call was held for approval");
}
