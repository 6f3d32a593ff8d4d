import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { trace } from "@opentelemetry/api";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { callTool, type Harness, HarnessRuntime, ToolTimeoutError } from "../../examples/seed-harness.js";
import { renderTimelineHtml } from "../../src/cli/html-timeline.js";
import { readTimelineInput } from "../../src/cli/html-timeline-read.js";
import { runCli } from "../../src/cli/program.js";
import {
  type ControlPlaneStore,
  MemoryControlPlaneStore,
  openControlPlaneStore,
  RuntimeManager,
} from "../../src/index.js";
import {
  filesBelow,
  placesHolding,
  postgresRows,
  type Searched,
  sqliteCells,
  storeReads,
  text,
} from "../helpers/canary-scan.js";
import { EXAMPLE, exampleManifest, modelStartingAt } from "../helpers/example.js";
import { callThroughGateway } from "../helpers/gateway-client.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { invocation, request, scheduler, toolAction } from "../store/records.js";

// docs/design.md §5: RAES does not receive or store tool arguments or results; the store
// keeps the admitted request (addresses, ids) and its digest only.

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

/** What one run left outside the store, and what it must show. */
interface CanaryRun {
  readonly outside: Searched[];
  /** Ids the store does record: the scans must find them, or they read nothing. */
  readonly control: string;
}

/**
 * Runs one invocation of the example whose harness calls tools with `marker` in every argument: two
 * calls through the real MCP gateway (echo, which answers with the marker, and write_db, refused),
 * then three straight through the port (succeeded, failed, timed out). Returns what was written
 * outside the store: logs, OTel spans, history and operation views, the HTML timeline.
 */
async function runWithCanary(store: ControlPlaneStore | string, marker: string): Promise<CanaryRun> {
  const control = randomUUID();
  const logs: string[] = [];
  let reachedUpstream = false;
  const harness: Harness = {
    async run(req, port) {
      assert.ok(port, "the example claims the composition, so the invocation has a port");
      const gateway = await callThroughGateway(port, [
        { name: "echo", arguments: { text: `pw:${marker}` } },
        { name: "write_db", arguments: { statement: `DROP ${marker}` } },
      ]);
      logs.push(...gateway.log);
      const [echo, refused] = gateway.answers;
      reachedUpstream = echo?.isError === false && echo.line.includes(marker);
      assert.ok(refused?.isError && typeof refused.code === "string", "write_db is refused");
      const args = { username: `svc-${marker}`, query: { note: marker } };
      const tool = (behave: "ok" | "fail" | "timeout") => async () => {
        if (behave === "timeout") throw new ToolTimeoutError(`portal did not answer for ${args.username}`);
        return behave === "ok" && args.query.note === marker;
      };
      for (const [i, behave] of (["ok", "fail", "timeout"] as const).entries()) {
        await callTool(port, `mcp-${control}-${req.ordinal}-${i}`, tool(behave));
      }
      return { status: "partial_success" };
    },
  };
  const manager = await RuntimeManager.open({
    model: modelStartingAt(10, 10),
    manifest: exampleManifest(),
    runtime: new HarnessRuntime(harness),
    store,
    log: (line) => logs.push(line),
  });
  const step = await manager.step();
  const summaries = step.invocations;
  assert.deepEqual(
    summaries.map((s) => s.error),
    [undefined],
  );
  assert.ok(reachedUpstream, "the marker went to the upstream and came back as the tool's result");
  assert.deepEqual(
    summaries.flatMap((s) => s.toolActions.map((a) => a.settlement)),
    ["succeeded", "succeeded", "failed", "indeterminate"],
  );
  const operations = await Promise.all(
    summaries
      .flatMap((s) => [s.invocationId, ...s.toolActions.map((a) => a.id)])
      .map((id) => manager.getOperation(id)),
  );
  const outside = [
    text("manager and gateway logs", logs),
    text("manager history", await manager.history()),
    text("participant history view", await manager.history({ participant: EXAMPLE.participant })),
    text("operations", operations),
  ];
  await manager.close();
  const spans = exporter
    .getFinishedSpans()
    .map((s) => ({ name: s.name, attributes: s.attributes, events: s.events }));
  assert.ok(spans.length > 0, "the run left OTel spans");
  outside.push(text("OTel spans", spans));
  exporter.reset();
  return { outside, control };
}

/** The HTML timeline of a store and, for a durable one, what `raes history --json` and `raes history` print. */
async function rendered(store: ControlPlaneStore, url?: string): Promise<Searched[]> {
  const pages = [
    text("HTML timeline", renderTimelineHtml({ ...(await readTimelineInput(store)), storeUrl: store.url })),
  ];
  if (url === undefined) return pages;
  for (const argv of [
    ["history", "--store", url, "--json"],
    ["history", "--store", url],
  ]) {
    pages.push(text(`raes ${argv.join(" ")}`, await printed(argv)));
  }
  return pages;
}

/** What the CLI writes on stdout, run in this process. */
async function printed(argv: readonly string[]): Promise<string> {
  let out = "";
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    assert.equal(await runCli(argv), 0, `raes ${argv.join(" ")}`);
  } finally {
    process.stdout.write = write;
    process.exitCode = undefined;
  }
  return out;
}

/** Asserts the control is in `mustShow` (so the scan reads what was written) and the marker nowhere. */
function assertClean(all: readonly Searched[], mustShow: readonly string[], marker: string, control: string) {
  assert.deepEqual(placesHolding(all, marker), [], "a tool argument or result was written here");
  const shown = placesHolding(all, control);
  for (const where of mustShow)
    assert.ok(shown.includes(where), `the scan of ${where} must see what was written`);
}

describe("canary: tool arguments and results never reach the control plane", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-canary-"));
  before(() => trace.setGlobalTracerProvider(provider));
  after(async () => {
    trace.disable();
    await provider.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("memory: not in any store read, log, span, history view or the HTML timeline", async () => {
    const marker = randomUUID();
    const store = new MemoryControlPlaneStore();
    const { outside, control } = await runWithCanary(store, marker);
    const all = [...outside, ...(await storeReads(store)), ...(await rendered(store))];
    assertClean(
      all,
      ["store events", "store tool actions", "manager history", "HTML timeline"],
      marker,
      control,
    );
  });

  it("SQLite: not in any file of the store's folder (WAL and shm too), any table or column, or what is printed", async () => {
    const marker = randomUUID();
    const folder = join(dir, "sqlite");
    mkdirSync(folder);
    const url = `sqlite:${join(folder, "canary.db")}`;
    const { outside, control } = await runWithCanary(url, marker);
    const store = await openControlPlaneStore(url, { create: false });
    try {
      const files = filesBelow(folder);
      assert.ok(files.length >= 1);
      const all = [
        ...outside,
        ...files,
        ...sqliteCells(join(folder, "canary.db")),
        ...(await rendered(store, url)),
      ];
      assertClean(
        all,
        [
          "sqlite table tool_actions",
          "sqlite table history_events",
          `raes history --store ${url} --json`,
          "HTML timeline",
        ],
        marker,
        control,
      );
    } finally {
      await store.close();
    }
  });

  it("PostgreSQL: not in any row of any table of the schema (from the catalog), or what is printed", async (t) => {
    if (!(await postgresAvailable("canary on PostgreSQL"))) {
      t.skip("POSTGRES UNAVAILABLE");
      return;
    }
    const marker = randomUUID();
    const { schema, url, drop } = freshSchema("raes_canary");
    try {
      const { outside, control } = await runWithCanary(url, marker);
      const store = await openControlPlaneStore(url, { create: false });
      try {
        const all = [...outside, ...(await postgresRows(schema)), ...(await rendered(store, url))];
        assertClean(all, ["postgres table tool_actions", "postgres table history_events"], marker, control);
      } finally {
        await store.close();
      }
    } finally {
      await drop();
    }
  });
});

describe("canary search finds a marker a careless writer stored", () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-canary-bites-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Stores a tool action whose request carries the marker as an argument, through the store's own writes. */
  async function storeArguments(store: ControlPlaneStore, marker: string): Promise<void> {
    const inv = invocation();
    await store.openInvocation(inv, scheduler());
    const careless = { ...request(inv), arguments: { password: marker.toUpperCase() } };
    await store.insertToolAction(toolAction(inv, 1, { request: careless as never }));
  }

  it("in a store read of the memory store", async () => {
    const marker = randomUUID();
    const store = new MemoryControlPlaneStore();
    await storeArguments(store, marker);
    assert.deepEqual(placesHolding(await storeReads(store), marker), ["store tool actions"]);
  });

  it("in a SQLite table and in the file, with a clean table not reported", async () => {
    const marker = randomUUID();
    const folder = join(dir, "sqlite");
    mkdirSync(folder);
    const file = join(folder, "careless.db");
    const store = await openControlPlaneStore(`sqlite:${file}`);
    await storeArguments(store, marker);
    await store.close();
    assert.deepEqual(placesHolding(sqliteCells(file), marker), ["sqlite table tool_actions"]);
    assert.deepEqual(placesHolding(filesBelow(folder), marker), [file]);
  });

  it("in a PostgreSQL table found through the catalog", async (t) => {
    if (!(await postgresAvailable("canary search on PostgreSQL"))) {
      t.skip("POSTGRES UNAVAILABLE");
      return;
    }
    const marker = randomUUID();
    const { schema, url, drop } = freshSchema("raes_canary_bites");
    try {
      const store = await openControlPlaneStore(url);
      await storeArguments(store, marker);
      await store.close();
      assert.deepEqual(placesHolding(await postgresRows(schema), marker), ["postgres table tool_actions"]);
    } finally {
      await drop();
    }
  });
});
