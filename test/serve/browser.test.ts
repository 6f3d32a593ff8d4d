import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import type { Browser, Frame, Page } from "playwright-core";
import { LOGIN_PATH, type PortalService, startPortalService } from "../../src/demo/index.js";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { exampleRunArgs, raes } from "../cli/cli.js";
import { browserSkipReason, launchChromium } from "../fixtures/history/chromium.js";
import type { ChildStdioTransport } from "../helpers/child-stdio.js";
import { writeHeldCall } from "../helpers/held-call.js";
import {
  heldGateway,
  indeterminateActions,
  pendingApproval,
  runToIndeterminate,
  type ServeProcess,
  startServe,
} from "./console.js";

/**
 * `raes serve` in its own process over a real SQLite store, driven in headless Chromium. Each case
 * builds on the one before (one console, one page), in order; a new case for another button is one
 * more `it` that writes what needs the operator and clicks.
 */
describe("raes serve in headless Chromium", { timeout: 180_000 }, () => {
  const skip = browserSkipReason();
  const dir = mkdtempSync(join(tmpdir(), "raes-serve-browser-"));
  const url = `sqlite:${join(dir, "store.db")}`;
  let browser: Browser;
  let serve: ServeProcess;
  let page: Page;
  let elsewhere: Server;
  let waiting: { id: string; participant: string };
  const errors: string[] = [];

  before(async () => {
    if (skip) return;
    // The store exists, empty, before the console opens it.
    await (await openControlPlaneStore(url)).close();
    serve = await startServe(["--store", url, "--listen", "127.0.0.1:0", "--operator", "alice"]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
        errors.push(message.text());
    });
    await page.goto(serve.printed, { timeout: 0 });
    await page.waitForSelector('#live[data-live="open"]', { timeout: 0 });
    // Marks this document: a reload would lose it.
    await page.evaluate("window.__sameDocument = true");
  });
  after(async () => {
    await browser?.close();
    elsewhere?.close();
    const code = await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (!skip) assert.equal(code, 0, serve?.stderr());
  });

  async function sameDocument(): Promise<void> {
    assert.equal(await page.evaluate("window.__sameDocument === true"), true, "the page was reloaded");
  }

  async function withStore<T>(work: (store: ControlPlaneStore) => Promise<T>): Promise<T> {
    const store = await openControlPlaneStore(url);
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  it("shows what another process's run left for an operator, its participant stopped, and its timeline", async (t) => {
    if (skip) return t.skip(skip);
    assert.equal(await page.isVisible("#waits-empty"), true);
    waiting = await runToIndeterminate(url, { controlled: true });
    const row = `[data-wait="${waiting.id}"]`;
    await page.waitForSelector(row, { timeout: 0 });
    assert.deepEqual(
      await page.$$eval(`${row} button`, (buttons) => buttons.map((b) => b.getAttribute("data-action"))),
      ["resolve-effect-confirmed", "resolve-effect-absent"],
    );
    const participant = `[data-participant="${waiting.participant}"]`;
    await page.waitForSelector(`${participant} [data-lifecycle="stopped"]`, { timeout: 0 });
    await page.waitForSelector(`${participant} [data-chain="verified"]`, { timeout: 0 });
    // The participant's timeline is the timeline page itself, in a sandboxed frame of the console.
    const frame = page.frameLocator(`details[data-timeline="${waiting.participant}"] iframe`);
    await frame.locator("[data-summary]").waitFor({ timeout: 0 });
    assert.equal(await frame.locator('[data-chain="verified"]').count(), 1);
    await sameDocument();
  });

  it("shows an action needing an operator within 2 s of another store client writing it", async (t) => {
    if (skip) return t.skip(skip);
    const [id] = await indeterminateActions(url, 1, "inv-written-later");
    // The one timed wait: the console's promise is at most 2 s behind the store.
    await page.waitForSelector(`[data-wait="${id}"]`, { timeout: 2_000 });
    await sameDocument();
  });

  it("refuses a page on another origin, with or without the token, and nothing changes", async (t) => {
    if (skip) return t.skip(skip);
    const target = `${serve.base}api/actions/resolve-effect-absent`;
    // A page elsewhere that knows the console's address, and (worst case) its token.
    const script = `
      const body = JSON.stringify({ subject: ${JSON.stringify(waiting.id)} });
      Promise.allSettled([
        fetch(${JSON.stringify(target)}, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }),
        fetch(${JSON.stringify(target)}, { method: "POST", headers: { "content-type": "application/json", "x-raes-token": ${JSON.stringify(serve.token)} }, body }),
        fetch(${JSON.stringify(`${target}?token=${serve.token}`)}, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body }),
      ]).then(() => { document.title = "sent"; });`;
    elsewhere = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.end(`<!doctype html><title>elsewhere</title><script>${script}</script>`);
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const other = await browser.newPage();
    await other.goto(`http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`, { timeout: 0 });
    await other.waitForFunction("document.title === 'sent'", undefined, { timeout: 0 });
    await other.close();
    await withStore(async (store) => {
      assert.equal((await store.getToolAction(waiting.id))?.resolution, undefined);
      assert.equal((await store.getDecisionHead()).decisions, 0);
    });
  });

  it("resolves the indeterminate action by a click, recorded as the console's operator, and the page updates without a reload", async (t) => {
    if (skip) return t.skip(skip);
    await page.fill("#note", "the portal shows no change");
    await page.click(`[data-wait="${waiting.id}"] button[data-action="resolve-effect-absent"]`);
    await page.waitForSelector(`[data-wait="${waiting.id}"]`, { state: "detached", timeout: 0 });
    await page.waitForSelector(`[data-operation="${waiting.id}"] [data-resolution="effect_absent"]`, {
      timeout: 0,
    });
    assert.match((await page.textContent("#message")) ?? "", /recorded as alice/);
    const resolution = await withStore(async (store) => (await store.getToolAction(waiting.id))?.resolution);
    assert.equal(resolution?.operator, "alice");
    assert.equal(resolution?.note, "the portal shows no change");
    await sameDocument();
  });

  it("resumes the participant by a click once nothing of it waits", async (t) => {
    if (skip) return t.skip(skip);
    const participant = `[data-participant="${waiting.participant}"]`;
    await page.click(`${participant} button[data-action="resume"]`);
    await page.waitForSelector(`${participant} [data-lifecycle="running"]`, { timeout: 0 });
    const decisions = await withStore((store) => store.readDecisionPage(0, 10));
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.subject, d.operator]),
      [
        ["resolve", waiting.id, "alice"],
        ["resume", waiting.participant, "alice"],
      ],
    );
    await page.waitForSelector('#decisions [data-chain="verified"]', { timeout: 0 });
    await sameDocument();
  });

  it("pauses the participant's execution service by a click; a click carrying a stale generation shows RAES's refusal and changes nothing", async (t) => {
    if (skip) return t.skip(skip);
    const participant = `[data-participant="${waiting.participant}"]`;
    const pause = `${participant} button[data-action="execution-pause"]`;
    await page.waitForSelector(pause, { timeout: 0 });
    const generation = Number(await page.getAttribute(`${participant} [data-service]`, "data-generation"));
    // The pause's answer is held back until the stale resume has been answered: the page shows the
    // paused service (pushed by the server) first, and the late answer must not overwrite the message.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let answered: () => void = () => undefined;
    const pauseAnswered = new Promise<void>((resolve) => {
      answered = resolve;
    });
    await page.route("**/api/actions/execution-pause", async (route) => {
      const response = await route.fetch();
      await released;
      await route.fulfill({ response });
      answered();
    });
    await page.click(pause);
    await page.waitForSelector(`${participant} [data-service="paused"]`, { timeout: 0 });
    const resume = `${participant} button[data-action="execution-resume"]`;
    await page.waitForSelector(resume, { timeout: 0 });
    const recorded = await withStore(async (store) => (await store.getDecisionHead()).decisions);
    // As if the service had moved to another generation since the page drew the button. The attribute
    // is set and the button clicked in one task: a state update between the two would redraw the
    // button with the store's generation, and the click would then resume the service.
    await page.$eval(
      resume,
      (button, stale) => {
        button.setAttribute("data-generation", String(stale));
        (button as unknown as { click(): void }).click();
      },
      generation + 1,
    );
    // A locator, not a string predicate: the page's CSP forbids eval, so Playwright could not run one there.
    // It waits for the action's outcome, refused or recorded, so a wrong outcome fails here at once.
    const outcome = page.locator("#message", { hasText: /^runtime\.|recorded as/ });
    await outcome.waitFor({ timeout: 0 });
    assert.match(String(await outcome.textContent()), /^runtime\.participant-execution-stale-generation/);
    release();
    await pauseAnswered;
    const updates = Number(await page.getAttribute("body", "data-updates"));
    await page.waitForSelector(`body:not([data-updates="${updates}"])`, { timeout: 0 });
    assert.match(
      String(await page.textContent("#message")),
      /^runtime\.participant-execution-stale-generation/,
      "the pause's late answer left the latest action's outcome",
    );
    await page.unroute("**/api/actions/execution-pause");
    await withStore(async (store) => {
      assert.equal((await store.getDecisionHead()).decisions, recorded, "the refusal recorded nothing");
      assert.equal(
        (await store.getParticipantService(waiting.participant))?.service.observed_lifecycle,
        "paused",
      );
    });
    // Redrawn with the generation the store holds, the button works.
    await page.waitForSelector(`${resume}[data-generation="${generation}"]`, { timeout: 0 });
    await page.click(resume);
    await page.waitForSelector(`${participant} [data-service="running"]`, { timeout: 0 });
    const decisions = await withStore((store) => store.readDecisionPage(0, 10));
    assert.deepEqual(
      decisions.slice(-2).map((d) => [d.kind, d.subject, d.operator]),
      [
        ["execution_pause", waiting.participant, "alice"],
        ["execution_resume", waiting.participant, "alice"],
      ],
    );
    await sameDocument();
  });

  it("shows a participant's chain broken at the participant and sequence of an edited event", async (t) => {
    if (skip) return t.skip(skip);
    const [edited] = await withStore((store) =>
      store.listEvents({ participantAddress: waiting.participant, limit: 2 }),
    );
    assert.ok(edited);
    const db = new Database(url.slice("sqlite:".length));
    db.prepare("UPDATE history_events SET chain_digest = ? WHERE sequence = ?").run(
      `sha256:${"0".repeat(64)}`,
      edited.sequence,
    );
    db.close();
    // Another run appends to the participant's history, which moves its head: the console checks again.
    await raes(exampleRunArgs(url));
    const badge = `[data-participant="${waiting.participant}"] [data-chain="broken"]`;
    await page.waitForSelector(badge, { timeout: 0 });
    assert.equal(
      await page.getAttribute(badge, "data-chain-at"),
      `${waiting.participant}#${edited.sequence}`,
    );
    await sameDocument();
    assert.deepEqual(errors, []);
  });

  it("says a chain could not be checked and the store's evidence broken, in the store's words, once its history table is gone", async (t) => {
    if (skip) return t.skip(skip);
    const db = new Database(url.slice("sqlite:".length));
    db.exec("DROP TABLE history_events");
    // A moved head makes the console check again; the check cannot read the events.
    db.prepare(
      "UPDATE history_chains SET head_sequence = head_sequence + 1 WHERE participant_address = ?",
    ).run(waiting.participant);
    db.close();
    const badge = `[data-participant="${waiting.participant}"] [data-chain="unreadable"]`;
    await page.waitForSelector(badge, { timeout: 0 });
    assert.match(
      (await page.textContent(badge)) ?? "",
      /^could not be checked: control-plane store \S+ is damaged: no such table: history_events; restore it/,
    );
    // raes verify --store exits 1 on such a store: the store's evidence is broken, with the same words.
    const evidence = '#evidence [data-chain="broken"]';
    await page.waitForSelector(evidence, { timeout: 0 });
    assert.match((await page.textContent(evidence)) ?? "", /broken: .*no such table: history_events/);
    await sameDocument();
  });
});

/**
 * Approvals from the console: a real `raes mcp-gateway` holds an agent's calls (map entry `approval:
 * required`) in front of the real demo MCP server, whose portal counts what reaches it; the operator
 * decides on the page, in order: approve one call, deny another.
 */
describe("raes serve approving and denying a gateway's held calls in headless Chromium", {
  timeout: 240_000,
}, () => {
  const skip = browserSkipReason();
  const dir = mkdtempSync(join(tmpdir(), "raes-serve-approvals-"));
  const url = `sqlite:${join(dir, "store.db")}`;
  const canary = `canary-${Array.from({ length: 24 }, () => String.fromCharCode(97 + randomInt(26))).join("")}`;
  let browser: Browser;
  let serve: ServeProcess;
  let page: Page;
  let portal: PortalService;
  let agent: { client: Client; transport: ChildStdioTransport };
  const stream = { text: "", done: new AbortController() };
  const decided: string[] = [];
  const errors: string[] = [];

  before(async () => {
    if (skip) return;
    await (await openControlPlaneStore(url)).close();
    portal = await startPortalService();
    serve = await startServe(["--store", url, "--listen", "127.0.0.1:0", "--operator", "alice"]);
    // Everything the console streams to a page, kept to search for the canary.
    const events = await fetch(`${serve.base}api/events?token=${serve.token}`, {
      signal: stream.done.signal,
    });
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of events.body as unknown as AsyncIterable<Uint8Array>)
        stream.text += decoder.decode(chunk, { stream: true });
    })().catch(() => undefined);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" && !/Failed to load resource/.test(message.text()))
        errors.push(message.text());
    });
    await page.goto(serve.printed, { timeout: 0 });
    await page.waitForSelector('#live[data-live="open"]', { timeout: 0 });
    await page.evaluate("window.__sameDocument = true");
    agent = await heldGateway(dir, url, portal.url);
  });
  after(async () => {
    stream.done.abort();
    await agent?.client.close();
    const gatewayCode = await agent?.transport.exited;
    await browser?.close();
    await portal?.close();
    const code = await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (!skip) {
      assert.equal(gatewayCode, 0, agent?.transport.stderr);
      assert.equal(code, 0, serve?.stderr());
    }
  });

  async function sameDocument(): Promise<void> {
    assert.equal(await page.evaluate("window.__sameDocument === true"), true, "the page was reloaded");
  }

  /** Calls the tool as the agent; resolves when the gateway answers (after a decision). */
  function call(path: string): Promise<CallToolResult> {
    return agent.client.callTool({ name: "probe_login", arguments: { path } }, undefined, {
      timeout: 200_000,
    }) as Promise<CallToolResult>;
  }

  /** Waits until the gateway held a new call (read from the store), then for the page to show it. */
  async function heldOnPage(): Promise<string> {
    const id = await pendingApproval(url, decided);
    decided.push(id);
    // The one timed wait: the console is at most 2 s behind the store.
    await page.waitForSelector(`[data-wait="${id}"][data-need="pending_approval"]`, { timeout: 2_000 });
    assert.deepEqual(
      await page.$$eval(`[data-wait="${id}"] button`, (buttons) =>
        buttons.map((b) => b.getAttribute("data-action")),
      ),
      ["approve", "deny"],
    );
    assert.match(
      (await page.textContent(`[data-wait="${id}"] [data-approval="pending"]`)) ?? "",
      /requested .* expires /,
    );
    return id;
  }

  it("shows a held call within 2 s; a click on Approve dispatches it, the upstream runs it once, and the page updates without a reload", async (t) => {
    if (skip) return t.skip(skip);
    const before = portal.requests()[LOGIN_PATH] ?? 0;
    const answer = call(LOGIN_PATH);
    const id = await heldOnPage();
    assert.equal(portal.requests()[LOGIN_PATH] ?? 0, before, "held: the upstream has not seen it");
    await page.fill("#note", "in scope");
    await page.click(`[data-wait="${id}"] button[data-action="approve"]`);
    const result = await answer;
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal((portal.requests()[LOGIN_PATH] ?? 0) - before, 1, "the tool ran exactly once");
    await page.waitForSelector(`[data-wait="${id}"]`, { state: "detached", timeout: 0 });
    const cell = `[data-operation="${id}"] [data-approval="approved"]`;
    await page.waitForSelector(cell, { timeout: 0 });
    assert.match((await page.textContent(cell)) ?? "", /approved by alice at /);
    assert.match((await page.textContent("#message")) ?? "", /recorded as alice/);
    const approval = await withStore(url, async (store) => (await store.getToolAction(id))?.approval);
    assert.deepEqual(
      [approval?.state, approval?.operator, approval?.note],
      ["approved", "alice", "in scope"],
    );
    await sameDocument();
  });

  it("withholds another held call by a click on Deny: it never reaches the upstream", async (t) => {
    if (skip) return t.skip(skip);
    const before = { ...portal.requests() };
    const answer = call(`/${canary}`);
    const id = await heldOnPage();
    await page.click(`[data-wait="${id}"] button[data-action="deny"]`);
    const result = await answer;
    assert.equal(result.isError, true);
    assert.equal(result._meta?.["raes/code"], "approval_denied");
    assert.deepEqual(portal.requests(), before, "the upstream never saw it");
    const cell = `[data-operation="${id}"] [data-approval="denied"]`;
    await page.waitForSelector(cell, { timeout: 0 });
    assert.match((await page.textContent(cell)) ?? "", /denied by alice at /);
    const action = await withStore(url, (store) => store.getToolAction(id));
    assert.deepEqual(
      [action?.settlement, action?.withheldReason, action?.dispatchedAt, action?.approval?.operator],
      ["withheld", "approval_denied", undefined, "alice"],
    );
    const decisions = await withStore(url, (store) => store.readDecisionPage(0, 10));
    assert.deepEqual(
      decisions.map((d) => [d.kind, d.subject, d.operator]),
      [
        ["approve", decided[0], "alice"],
        ["deny", id, "alice"],
      ],
    );
    await sameDocument();
  });

  it("never puts the denied call's argument value on the page, in its frames or in the state stream", async (t) => {
    if (skip) return t.skip(skip);
    // The stream has carried the denial, so it carried everything the console shows of that call.
    await waitFor(() => stream.text.includes('"denied"'));
    const documents = await Promise.all(page.frames().map(settledContent));
    assert.ok(documents.length >= 1);
    for (const html of [...documents, stream.text]) assert.equal(html.includes(canary), false);
    assert.equal(stream.text.includes(canary), false);
    assert.deepEqual(errors, []);
  });
});

/**
 * Held calls whose approve would be refused, as `raes operations --needs-operator` finds them: one
 * whose runtime is gone (its process exited, as after a SIGKILL), one whose timeout has passed; and
 * one still open. The page offers each what the CLI listing prints, in order: look, then deny one.
 */
describe("raes serve offering a held call whose approval lapsed in headless Chromium", {
  timeout: 180_000,
}, () => {
  const skip = browserSkipReason();
  const dir = mkdtempSync(join(tmpdir(), "raes-serve-lapsed-"));
  const url = `sqlite:${join(dir, "store.db")}`;
  let browser: Browser;
  let serve: ServeProcess;
  let page: Page;
  const held = { open: "", gone: "", late: "" };
  const errors: string[] = [];

  before(async () => {
    if (skip) return;
    await withStore(url, async (store) => {
      held.open = await writeHeldCall(store, "participant.held.open", "open");
      held.gone = await writeHeldCall(store, "participant.held.gone", "runtime-gone");
      held.late = await writeHeldCall(store, "participant.held.late", "timed-out");
    });
    serve = await startServe(["--store", url, "--listen", "127.0.0.1:0", "--operator", "alice"]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(serve.printed, { timeout: 0 });
    await page.waitForSelector('#live[data-live="open"]', { timeout: 0 });
  });
  after(async () => {
    await browser?.close();
    const code = await serve?.stop();
    rmSync(dir, { recursive: true, force: true });
    if (!skip) assert.equal(code, 0, serve?.stderr());
  });

  function actions(id: string): Promise<(string | null)[]> {
    return page.$$eval(`[data-wait="${id}"] button`, (buttons) =>
      buttons.map((b) => b.getAttribute("data-action")),
    );
  }

  it("offers only Deny for a held call whose runtime is gone or whose timeout passed, saying why in --needs-operator's words, in its row and its timeline", async (t) => {
    if (skip) return t.skip(skip);
    for (const id of Object.values(held)) await page.waitForSelector(`[data-wait="${id}"]`, { timeout: 0 });
    assert.deepEqual(await actions(held.open), ["approve", "deny"]);
    assert.equal(await page.locator(`[data-wait="${held.open}"] [data-no-approve]`).count(), 0);
    // What the CLI listing says instead of each approve it does not print.
    const listed = await raes(["operations", "--needs-operator", "--store", url]);
    assert.equal(listed.code, 0, listed.stderr);
    const said = listed.stdout
      .split("\n")
      .filter((line) => line.includes("(no approve: "))
      .map((line) => line.trim());
    assert.equal(said.length, 2, listed.stdout);
    for (const [id, code] of [
      [held.gone, "approval.runtime-gone"],
      [held.late, "approval.expired"],
    ] as const) {
      assert.deepEqual(await actions(id), ["deny"]);
      const why = page.locator(`[data-wait="${id}"] [data-no-approve]`);
      assert.equal(await why.getAttribute("data-no-approve"), code);
      const text = (await why.textContent()) ?? "";
      assert.ok(said.includes(text), `${text} is not among ${JSON.stringify(said)}`);
      assert.ok(text.includes(id), text);
      // The participant's timeline frame prints the deny command only, with the same reason.
      const participant = id === held.gone ? "participant.held.gone" : "participant.held.late";
      const frame = page.frameLocator(`details[data-timeline="${participant}"] iframe`);
      const item = frame.locator(`[data-pending-approval="${id}"]`);
      await item.waitFor({ timeout: 0 });
      assert.deepEqual(
        await item
          .locator("[data-decision]")
          .evaluateAll((codes) => codes.map((c) => c.getAttribute("data-decision"))),
        ["deny"],
      );
      assert.equal(await item.locator("[data-no-approve]").textContent(), text);
    }
  });

  it("denies the call whose runtime is gone by a click, recorded as the console's operator", async (t) => {
    if (skip) return t.skip(skip);
    await page.click(`[data-wait="${held.gone}"] button[data-action="deny"]`);
    await page.waitForSelector(`[data-wait="${held.gone}"]`, { state: "detached", timeout: 0 });
    assert.match((await page.textContent("#message")) ?? "", /recorded as alice/);
    const approval = await withStore(url, async (store) => (await store.getToolAction(held.gone))?.approval);
    assert.deepEqual([approval?.state, approval?.operator], ["denied", "alice"]);
    assert.deepEqual(errors, []);
  });
});

async function withStore<T>(url: string, work: (store: ControlPlaneStore) => Promise<T>): Promise<T> {
  const store = await openControlPlaneStore(url);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Polls `condition` until it holds; the suite's timeout bounds it. */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * A frame's HTML once it is not navigating: a frame the console reloads after a decision cannot be
 * read while the reload runs, so the read waits for it to load and tries again.
 */
async function settledContent(frame: Frame): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await frame.content();
    } catch (error) {
      if (attempt >= 20 || !String(error).includes("navigating")) throw error;
      await frame.waitForLoadState().catch(() => undefined);
    }
  }
}
