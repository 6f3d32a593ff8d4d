import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { HistoryEvent } from "../../src/history/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";
import { readTimelineInput, renderTimelineHtml } from "../../src/timeline/index.js";
import { captureCli } from "../fixtures/history/capture.js";
import { attributeValues, withRows } from "../fixtures/history/html.js";
import { KNOWN_COUNTS, type KnownRun, runKnownHistory } from "../fixtures/history/scripted-run.js";
import { raesStringFields } from "../helpers/raes-fields.js";

const TOOL_CONTEXT_FIELDS = [
  "invocation_action_instance_id",
  "invocation_action_contract_address",
  "tool_affordance_address",
  "tool_call_id",
  "admission_ordinal",
  "settlement",
  "execution_scope_ref",
  "execution_generation",
];
const TRIPLE = ["action_attempted", "state_transition_recorded", "observation_emitted"];

const dir = mkdtempSync(join(tmpdir(), "raes-history-cli-"));
const storeUrl = `sqlite:${join(dir, "x.db")}`;
let run: KnownRun;
let allEvents: HistoryEvent[];

before(async () => {
  run = await runKnownHistory(storeUrl);
  allEvents = await historyJson();
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function historyJson(...args: string[]): Promise<HistoryEvent[]> {
  const result = await captureCli(["history", "--json", "--store", storeUrl, ...args]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { events: HistoryEvent[] };
  assert.deepEqual(Object.keys(parsed), ["events", "schedulers"]);
  return parsed.events;
}

function snakeCaseKeys(value: unknown, path = "event"): void {
  if (typeof value !== "object" || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (!Array.isArray(value)) assert.match(key, /^[a-z][a-z0-9_]*$/, `${path}.${key}`);
    snakeCaseKeys(inner, `${path}.${key}`);
  }
}

describe("raes history --json", () => {
  it('prints {"events": [...], "schedulers": [...]}: events in commit order, exactly as the store holds them', async () => {
    const events = allEvents;
    assert.equal(events.length, 3 * (KNOWN_COUNTS.toolActions + KNOWN_COUNTS.invocations - 1));
    const sequences = events.map((event) => event.sequence);
    assert.deepEqual(
      sequences,
      [...sequences].sort((a, b) => a - b),
    );
    assert.equal(new Set(sequences).size, sequences.length);
    const store = await openControlPlaneStore(storeUrl);
    try {
      assert.deepEqual(events, await store.listEvents());
    } finally {
      await store.close();
    }
  });

  it("carries the wire fields of docs/design.md §7 in snake_case", async () => {
    for (const event of allEvents) {
      snakeCaseKeys(event);
      for (const field of raesStringFields(event.event_type))
        assert.equal(
          typeof (event as unknown as Record<string, unknown>)[field],
          "string",
          `${event.event_id} ${field}`,
        );
      assert.ok(
        event.temporal_contexts.length > 0 && event.temporal_contexts.every((c) => c.observation_point),
      );
      if (event.event_type === "observation_emitted") {
        assert.ok(event.observation_status, event.event_id);
        assert.equal(typeof event.action_result?.status, "string", event.event_id);
      }
      const context = event.invocation_tool_context;
      if (context) assert.deepEqual(Object.keys(context).sort(), [...TOOL_CONTEXT_FIELDS].sort());
      else assert.equal(event.action_instance_id.includes(":tool="), false, event.event_id);
    }
  });

  it("writes whole triples, tool triples in admission order right before their invocation's triple", async () => {
    const events = allEvents;
    const triples: HistoryEvent[][] = [];
    for (let i = 0; i < events.length; i += 3) triples.push(events.slice(i, i + 3));
    for (const triple of triples) {
      assert.deepEqual(
        triple.map((event) => event.event_type),
        TRIPLE,
      );
      assert.equal(new Set(triple.map((event) => event.action_instance_id)).size, 1);
    }
    let pending: { invocation: string; ordinals: number[] } | undefined;
    const outerIds: string[] = [];
    for (const [first] of triples) {
      const context = first?.invocation_tool_context;
      if (context) {
        if (pending?.invocation !== context.invocation_action_instance_id) {
          pending = { invocation: context.invocation_action_instance_id, ordinals: [] };
        }
        pending.ordinals.push(context.admission_ordinal);
        assert.deepEqual(
          pending.ordinals,
          pending.ordinals.map((_, index) => index + 1),
        );
      } else {
        outerIds.push(first?.action_instance_id ?? "");
        assert.equal(
          pending?.invocation,
          first?.action_instance_id,
          "the outer triple follows its own tool triples",
        );
        pending = undefined;
      }
    }
    assert.equal(outerIds.length, KNOWN_COUNTS.invocations - 1);
  });

  it("filters by participant and by episode", async () => {
    assert.deepEqual(await historyJson("--participant", "participant.behavior.nobody"), []);
    const episode = allEvents[0]?.episode_id ?? "";
    const filtered = await historyJson("--participant", run.participant, "--episode", episode);
    assert.ok(filtered.length > 0);
    assert.deepEqual(
      filtered,
      allEvents.filter(
        (event) => event.participant_address === run.participant && event.episode_id === episode,
      ),
    );
  });

  it("keeps the plain listing: one line per event", async () => {
    const result = await captureCli(["history", "--store", storeUrl]);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, allEvents.length);
    assert.match(lines[0] ?? "", /^\s+1 action_attempted\s+\S+:tool=1 tool_call=mcp-session-1:req-1$/);
  });
});

describe("raes history --html", () => {
  it("writes the timeline of the store's history and prints its path", async () => {
    const file = join(dir, "nested", "timeline.html");
    const result = await captureCli(["history", "--html", file, "--store", storeUrl], "source");
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${file}\n`);
    const written = readFileSync(file, "utf8");
    const store = await openControlPlaneStore(storeUrl);
    try {
      assert.equal(
        written,
        renderTimelineHtml({
          ...(await readTimelineInput(store)),
          title: "RAES behavior history",
          // The page names the store it was read from, so its resolve commands run from anywhere.
          storeUrl,
        }),
      );
    } finally {
      await store.close();
    }
    const drawn = withRows(written);
    assert.equal(attributeValues(drawn, "data-tool-action").length, KNOWN_COUNTS.toolActions);
    assert.equal(attributeValues(drawn, "data-invocation").length, KNOWN_COUNTS.invocations);
    assert.deepEqual(attributeValues(written, "data-unresolved"), [run.unresolvedId]);
    assert.deepEqual(attributeValues(written, "data-resolved"), [run.resolvedId]);
    assert.deepEqual(attributeValues(written, "data-scheduler"), ["stopped"]);
  });

  it("applies the filters to the page and names them in its title", async () => {
    const file = join(dir, "nobody.html");
    const result = await captureCli([
      "history",
      "--html",
      file,
      "--participant",
      "participant.behavior.nobody",
      "--store",
      storeUrl,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const written = readFileSync(file, "utf8");
    assert.match(
      written,
      /<title>RAES behavior history — participant participant\.behavior\.nobody<\/title>/,
    );
    assert.deepEqual(attributeValues(withRows(written), "data-tool-action"), []);
    assert.deepEqual(attributeValues(written, "data-participant"), []);
  });

  it("refuses --html together with --json as a usage error, writing nothing", async () => {
    const file = join(dir, "both.html");
    const result = await captureCli(["history", "--html", file, "--json", "--store", storeUrl]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--html <file>.*cannot be used with option '--json'/);
    assert.equal(existsSync(file), false);
  });

  it("documents --html in --help", async () => {
    const result = await captureCli(["history", "--help"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /--html <file>\s+write a self-contained HTML timeline/);
  });
});
