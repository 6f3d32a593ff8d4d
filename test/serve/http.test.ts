import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import pg from "pg";
import {
  type ConsoleServer,
  type ConsoleState,
  MAX_WAITING_RENDERS,
  ServeRefusal,
  SHOWN,
  startConsole,
} from "../../src/serve/index.js";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { aroundStoreMethod } from "../helpers/faulty-store.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { heldCalls, indeterminateActions, runToIndeterminate } from "./console.js";

const TOKEN = "test-token-0123456789abcdef";
const DIR = mkdtempSync(join(tmpdir(), "raes-serve-http-"));
/** PostgreSQL schemas to drop once every suite is done. */
const drops: (() => Promise<void>)[] = [];
after(async () => {
  rmSync(DIR, { recursive: true, force: true });
  for (const drop of drops) await drop();
});

/** A raw HTTP request, so the Host, Origin and every header are exactly as given. */
function send(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? "GET", headers: { ...options.headers }, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

function errorCode(body: string): string | undefined {
  return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
}

/** Each store the console runs over: real SQLite, and real PostgreSQL when it answers. */
const STORES: {
  name: string;
  url: () => Promise<string | undefined>;
  tamper: (url: string, sequence: number) => Promise<void>;
}[] = [
  {
    name: "SQLite",
    url: async () => `sqlite:${join(DIR, `store-${Date.now()}.db`)}`,
    tamper: async (url, sequence) => {
      const db = new Database(url.slice("sqlite:".length));
      db.prepare("UPDATE history_events SET chain_digest = ? WHERE sequence = ?").run(
        `sha256:${"0".repeat(64)}`,
        sequence,
      );
      db.close();
    },
  },
  {
    name: "PostgreSQL",
    url: async () => {
      if (!(await postgresAvailable("raes serve over PostgreSQL"))) return undefined;
      const schema = freshSchema("raes_serve");
      drops.push(schema.drop);
      return schema.url;
    },
    tamper: async (url, sequence) => {
      const parsed = new URL(url);
      const schema = parsed.searchParams.get("schema") ?? "";
      parsed.searchParams.delete("schema");
      const client = new pg.Client({ connectionString: parsed.toString() });
      await client.connect();
      try {
        await client.query(`SET search_path TO ${schema}`);
        await client.query("UPDATE history_events SET chain_digest = $1 WHERE sequence = $2", [
          `sha256:${"0".repeat(64)}`,
          sequence,
        ]);
      } finally {
        await client.end();
      }
    },
  },
];

for (const kind of STORES) {
  describe(`raes serve's endpoints over ${kind.name}`, { timeout: 120_000 }, () => {
    let url: string | undefined;
    let store: ControlPlaneStore;
    let console_: ConsoleServer;
    let waiting: { id: string; participant: string };
    let origin: string;

    before(async () => {
      url = await kind.url();
      if (url === undefined) return;
      waiting = await runToIndeterminate(url, { controlled: true });
      store = await openControlPlaneStore(url);
      console_ = await startConsole({
        store,
        storeUrl: url,
        listen: { host: "127.0.0.1", port: 0 },
        token: TOKEN,
        operator: "alice",
        timing: { minIntervalMs: 0, recheckMs: 100 },
      });
      origin = console_.url.slice(0, -1);
    });
    after(async () => {
      await console_?.close();
      await store?.close();
    });

    /** Nothing was decided: the action is unresolved and the operator chain is empty. */
    async function unchanged(): Promise<void> {
      assert.equal((await store.getToolAction(waiting.id))?.resolution, undefined);
      assert.equal((await store.getDecisionHead()).decisions, 0);
    }

    function action(name: string, body: unknown, headers: Record<string, string>) {
      return send(console_.url, `/api/actions/${name}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    }

    it("serves the page only with the token, under a hash-only CSP that names the page's own script and style", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const bare = await send(console_.url, "/");
      assert.equal(bare.status, 401);
      assert.equal(errorCode(bare.body), ServeRefusal.token_required);
      assert.equal((await send(console_.url, "/?token=wrong-token-0123456789")).status, 401);
      const page = await send(console_.url, `/?token=${TOKEN}`);
      assert.equal(page.status, 200);
      const csp = String(page.headers["content-security-policy"]);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      const script = /<script>([\s\S]*)<\/script>/.exec(page.body)?.[1] ?? "";
      const style = /<style>([\s\S]*)<\/style>/.exec(page.body)?.[1] ?? "";
      const hash = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
      assert.ok(csp.includes(`script-src ${hash(script)}`), csp);
      // The inlined script parses (a syntax error would leave the page dead with no server-side sign).
      assert.doesNotThrow(() => new Function(script));
      assert.ok(csp.includes(`style-src ${hash(style)}`), csp);
      assert.equal(page.headers["x-content-type-options"], "nosniff");
    });

    it("refuses a Host that does not name the console (DNS rebinding), token or not", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const answer = await send(console_.url, `/?token=${TOKEN}`, {
        headers: { host: `evil.example:${console_.port}` },
      });
      assert.equal(answer.status, 403);
      assert.equal(errorCode(answer.body), ServeRefusal.host_refused);
    });

    it("refuses a state change without the token, from another origin or with no origin, and changes nothing", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const body = { subject: waiting.id };
      const noToken = await action("resolve-effect-absent", body, { origin });
      assert.equal(noToken.status, 401);
      assert.equal(errorCode(noToken.body), ServeRefusal.token_required);
      // The page's ?token= is for reads: a change carries it in a header.
      const queryToken = await send(console_.url, `/api/actions/resolve-effect-absent?token=${TOKEN}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin },
        body: JSON.stringify(body),
      });
      assert.equal(queryToken.status, 401);
      for (const headers of [
        { "x-raes-token": TOKEN, origin: "http://evil.example" },
        { "x-raes-token": TOKEN },
        { "x-raes-token": TOKEN, origin: "null" },
        { "x-raes-token": TOKEN, origin, "sec-fetch-site": "cross-site" },
      ]) {
        const answer = await action("resolve-effect-absent", body, headers);
        assert.equal(answer.status, 403, JSON.stringify(headers));
        assert.equal(errorCode(answer.body), ServeRefusal.cross_origin);
      }
      const plain = await send(console_.url, "/api/actions/resolve-effect-absent", {
        method: "POST",
        headers: { "content-type": "text/plain", "x-raes-token": TOKEN, origin },
        body: JSON.stringify(body),
      });
      assert.equal(errorCode(plain.body), ServeRefusal.bad_request);
      const large = await action(
        "resolve-effect-absent",
        { subject: waiting.id, note: "n".repeat(20_000) },
        { "x-raes-token": TOKEN, origin },
      );
      assert.equal(large.status, 413);
      assert.equal(errorCode(large.body), ServeRefusal.body_too_large);
      const unknown = await action("launch-missiles", body, { "x-raes-token": TOKEN, origin });
      assert.equal(errorCode(unknown.body), ServeRefusal.unknown_action);
      const get = await send(console_.url, `/api/actions/resolve-effect-absent?token=${TOKEN}`);
      assert.equal(errorCode(get.body), ServeRefusal.method_not_allowed);
      await unchanged();
    });

    it("refuses a note holding a lone surrogate or a NUL as operator.note-invalid, and leaves no trace", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const headers = { "x-raes-token": TOKEN, origin };
      for (const note of ["checked \ud800 logs", "checked \u0000 logs"]) {
        const refused = await action("resolve-effect-absent", { subject: waiting.id, note }, headers);
        assert.equal(refused.status, 400, refused.body);
        assert.equal(errorCode(refused.body), "operator.note-invalid");
      }
      await unchanged();
    });

    it("resolves from its endpoint with the token and the console's origin, recorded as its operator; a second time is refused", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const headers = { "x-raes-token": TOKEN, origin };
      const done = await action(
        "resolve-effect-absent",
        { subject: waiting.id, note: "checked the portal" },
        headers,
      );
      assert.equal(done.status, 200, done.body);
      const resolution = (await store.getToolAction(waiting.id))?.resolution;
      assert.equal(resolution?.resolution, "effect_absent");
      assert.equal(resolution?.operator, "alice");
      assert.equal(resolution?.note, "checked the portal");
      const again = await action("resolve-effect-confirmed", { subject: waiting.id }, headers);
      assert.equal(again.status, 409);
      assert.equal(errorCode(again.body), "resolution.already-resolved");
      const resumed = await action("resume", { subject: waiting.participant }, headers);
      assert.equal(resumed.status, 200, resumed.body);
      const decisions = await store.readDecisionPage(0, 10);
      assert.deepEqual(
        decisions.map((d) => [d.kind, d.operator]),
        [
          ["resolve", "alice"],
          ["resume", "alice"],
        ],
      );
    });

    async function readState(): Promise<ConsoleState> {
      return JSON.parse(
        (await send(console_.url, "/api/state", { headers: { "x-raes-token": TOKEN } })).body,
      ) as ConsoleState;
    }

    it("approves and denies held calls from their endpoints, recorded as its operator; a repeat changes nothing and every refusal leaves no trace", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const headers = { "x-raes-token": TOKEN, origin };
      const [approved = "", denied = ""] = await heldCalls(url, 2);
      const shown = (await readState()).waits.items.filter((w) => w.need === "pending_approval");
      assert.deepEqual(shown.map((w) => w.id).sort(), [approved, denied].sort());
      const pending = shown.find((w) => w.id === approved);
      assert.deepEqual(pending?.actions, ["approve", "deny"]);
      assert.equal(pending?.approval?.state, "pending");
      assert.equal(
        Date.parse(pending?.approval?.expiresAt ?? "") - Date.parse(pending?.approval?.requestedAt ?? ""),
        300_000,
      );
      const before = (await store.getDecisionHead()).decisions;
      const refusals: [string, string, string][] = [
        ["approve", waiting.id, "approval.not-held"],
        ["deny", "no-such-action", "approval.unknown-action"],
      ];
      for (const [name, subject, code] of refusals) {
        const answer = await action(name, { subject }, headers);
        assert.equal(answer.status, 409, answer.body);
        assert.equal(errorCode(answer.body), code);
      }
      assert.equal((await store.getDecisionHead()).decisions, before, "a refusal records nothing");

      const yes = await action("approve", { subject: approved, note: "in scope" }, headers);
      assert.equal(yes.status, 200, yes.body);
      assert.equal(JSON.parse(yes.body).answer.outcome, "approved");
      const again = await action("approve", { subject: approved }, headers);
      assert.equal(JSON.parse(again.body).answer.outcome, "already-approved");
      const no = await action("deny", { subject: denied, note: "out of scope" }, headers);
      assert.equal(JSON.parse(no.body).answer.outcome, "denied");
      for (const [name, subject, code] of [
        ["deny", approved, "approval.already-approved"],
        ["approve", denied, "approval.already-denied"],
      ] as const) {
        const answer = await action(name, { subject }, headers);
        assert.equal(answer.status, 409);
        assert.equal(errorCode(answer.body), code);
      }
      const decisions = (await store.readDecisionPage(0, 100)).slice(before);
      assert.deepEqual(
        decisions.map((d) => [d.kind, d.subject, d.operator, d.note]),
        [
          ["approve", approved, "alice", "in scope"],
          ["deny", denied, "alice", "out of scope"],
        ],
      );
      const state = await readState();
      assert.equal(state.waits.items.filter((w) => w.need === "pending_approval").length, 0);
      const listed = new Map(state.operations.items.map((o) => [o.id, o.approval]));
      assert.equal(listed.get(approved)?.state, "approved");
      assert.equal(listed.get(approved)?.operator, "alice");
      assert.ok(listed.get(approved)?.decidedAt);
      assert.equal(listed.get(denied)?.state, "denied");
    });

    it("pauses, resumes, drains and resets the participant's execution service with the generation the page showed; a stale generation or a wrong lifecycle is refused and leaves no trace", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const headers = { "x-raes-token": TOKEN, origin };
      const shown = async () => {
        const p = (await readState()).participants.items.find((i) => i.address === waiting.participant);
        assert.ok(p?.service, "the participant has an execution service");
        return { service: p.service, actions: p.actions.filter((a) => a.startsWith("execution-")) };
      };
      const first = await shown();
      assert.equal(first.service.lifecycle, "running");
      assert.deepEqual(first.actions, ["execution-pause", "execution-drain"]);
      const generation = first.service.generation;
      const before = (await store.getDecisionHead()).decisions;
      const revision = (await store.getParticipantService(waiting.participant))?.revision;
      const noTrace = async () => {
        assert.equal((await store.getDecisionHead()).decisions, before);
        assert.equal((await store.getParticipantService(waiting.participant))?.revision, revision);
      };

      const stale = await action(
        "execution-pause",
        { subject: waiting.participant, generation: generation + 7 },
        headers,
      );
      assert.equal(stale.status, 409);
      assert.equal(errorCode(stale.body), "runtime.participant-execution-stale-generation");
      assert.deepEqual(JSON.parse(stale.body).error.detail, { lifecycle: "running", generation });
      const wrong = await action("execution-reset", { subject: waiting.participant, generation }, headers);
      assert.equal(errorCode(wrong.body), "runtime.participant-execution-transition-invalid");
      const unknown = await action("execution-pause", { subject: "participant.nobody", generation }, headers);
      assert.equal(errorCode(unknown.body), "runtime.participant-execution-not-found");
      const malformed = await action(
        "execution-pause",
        { subject: waiting.participant, generation: "1" },
        headers,
      );
      assert.equal(malformed.status, 400);
      assert.equal(errorCode(malformed.body), ServeRefusal.bad_request);
      await noTrace();

      const steps: [string, string, string[], number][] = [
        ["execution-pause", "paused", ["execution-resume", "execution-drain"], generation],
        ["execution-resume", "running", ["execution-pause", "execution-drain"], generation],
        ["execution-drain", "quiescent", ["execution-reset", "execution-teardown"], generation],
        ["execution-reset", "running", ["execution-pause", "execution-drain"], generation + 1],
      ];
      for (const [name, lifecycle, next, nextGeneration] of steps) {
        const seen = (await shown()).service.generation;
        const answer = await action(
          name,
          { subject: waiting.participant, note: name, generation: seen },
          headers,
        );
        assert.equal(answer.status, 200, answer.body);
        assert.deepEqual(JSON.parse(answer.body).answer, { lifecycle, generation: nextGeneration });
        const after = await shown();
        assert.equal(after.service.lifecycle, lifecycle);
        assert.deepEqual(after.actions, next);
      }
      // The page still showing the generation before the reset: its click is refused.
      const late = await action("execution-pause", { subject: waiting.participant, generation }, headers);
      assert.equal(errorCode(late.body), "runtime.participant-execution-stale-generation");
      const decisions = (await store.readDecisionPage(0, 100)).slice(before);
      assert.deepEqual(
        decisions.map((d) => [d.kind, d.subject, d.operator, d.note]),
        steps.map(([name]) => [name.replace("-", "_"), waiting.participant, "alice", name]),
      );
    });

    it("bounds every list, saying when more exist", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      await indeterminateActions(url, SHOWN.waits + 20);
      const answer = await send(console_.url, "/api/state", { headers: { "x-raes-token": TOKEN } });
      const state = JSON.parse(answer.body) as ConsoleState;
      assert.equal(state.waits.items.length, SHOWN.waits);
      assert.equal(state.waits.more, true);
      assert.equal(state.operations.items.length, SHOWN.operations);
      assert.equal(state.operations.more, true);
      assert.ok(state.waits.items.every((w) => w.need === "resolution" && w.actions.length === 2));
    });

    it("streams the state as server-sent events, and a client that goes away leaves no stream behind", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const aborted = new AbortController();
      const response = await fetch(`${console_.url}api/events?token=${TOKEN}`, { signal: aborted.signal });
      assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let text = "";
      while (!text.includes("event: state")) text += new TextDecoder().decode((await reader.read()).value);
      assert.equal(console_.streams(), 1);
      aborted.abort();
      await reader.cancel().catch(() => undefined);
      while (console_.streams() !== 0) await new Promise((resolve) => setTimeout(resolve, 20));
    });

    it("shows each participant's chain as verified, then broken at its participant and sequence after an edit", async (t) => {
      if (url === undefined) return t.skip("PostgreSQL unavailable");
      const participantChain = async () => {
        const state = JSON.parse(
          (await send(console_.url, "/api/state", { headers: { "x-raes-token": TOKEN } })).body,
        ) as ConsoleState;
        return state.participants.items.find((p) => p.address === waiting.participant)?.chain;
      };
      // Waiting with no time limit of its own: the suite's timeout bounds it.
      while ((await participantChain())?.state !== "verified")
        await new Promise((resolve) => setTimeout(resolve, 50));
      const [event] = await store
        .listEvents({ participantAddress: waiting.participant, limit: 3 })
        .then((e) => e.slice(2));
      assert.ok(event);
      await kind.tamper(url, event.sequence);
      let chain = await participantChain();
      while (chain?.state !== "broken") {
        await new Promise((resolve) => setTimeout(resolve, 50));
        chain = await participantChain();
      }
      assert.equal(chain.at?.participant, waiting.participant);
      assert.equal(chain.at?.sequence, event.sequence);
      const frame = await send(
        console_.url,
        `/timeline?participant=${encodeURIComponent(waiting.participant)}&v=broken&token=${TOKEN}`,
      );
      assert.equal(frame.status, 200);
      assert.match(frame.body, /data-chain="broken"/);
      assert.match(String(frame.headers["content-security-policy"]), /frame-ancestors 'self'/);
    });
  });
}

describe("raes serve under a flood of timeline frames", { timeout: 120_000 }, () => {
  it("draws at most eight frames at a time, refuses the rest as serve.busy without reading the store, and answers again once they are drawn", async () => {
    const url = `sqlite:${join(DIR, "frames-flood.db")}`;
    const waiting = await runToIndeterminate(url, { controlled: true });
    const inner = await openControlPlaneStore(url);
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let reads = 0;
    // Every timeline read waits at the gate, so the first frame is still being drawn when the rest arrive.
    const store = aroundStoreMethod(inner, "listEvents", async (_args, call) => {
      reads += 1;
      await gate;
      return call();
    });
    const console_ = await startConsole({
      store,
      storeUrl: url,
      listen: { host: "127.0.0.1", port: 0 },
      token: TOKEN,
      operator: "alice",
      timing: { minIntervalMs: 0, recheckMs: 60_000 },
    });
    try {
      const frame = (v: string) =>
        send(
          console_.url,
          `/timeline?participant=${encodeURIComponent(waiting.participant)}&v=${v}&token=${TOKEN}`,
        );
      const first = Array.from({ length: MAX_WAITING_RENDERS }, (_, i) => frame(`v${i}`));
      // The first render has reached the store (and waits there); the others wait their turn.
      while (reads === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const readsBefore = reads;
      const refused = await Promise.all(Array.from({ length: 5 }, (_, i) => frame(`extra${i}`)));
      for (const answer of refused) {
        assert.equal(answer.status, 503);
        assert.equal(errorCode(answer.body), ServeRefusal.busy);
      }
      assert.equal(reads, readsBefore, "a refused frame reads nothing");
      open();
      for (const answer of await Promise.all(first)) assert.equal(answer.status, 200);
      const again = await frame("after");
      assert.equal(again.status, 200);
      assert.match(again.body, /<html/);
    } finally {
      await console_.close();
      await inner.close();
    }
  });
});
