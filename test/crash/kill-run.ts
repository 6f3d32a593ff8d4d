import assert from "node:assert/strict";
import { join } from "node:path";
import { ChildScript } from "../helpers/child-process.js";
import { ROOT } from "../helpers/example.js";
import type { KillPoint } from "./kill-points.js";

const CHILD = join(ROOT, "test", "helpers", "child-crash.ts");

/** What the killed child announced before it died. */
export interface ChildLog {
  readonly lines: readonly string[];
  /** Outer invocations the harness was handed, in order; the last one was interrupted. */
  readonly invocations: readonly string[];
  readonly admitted: readonly string[];
  readonly dispatched: readonly string[];
  readonly effects: readonly string[];
  readonly completed: readonly string[];
  readonly refused: readonly string[];
}

/** One kill: which store, where, at which tool call, after how many whole invocations. */
export interface KillRun {
  readonly url: string;
  readonly effectFile: string;
  readonly point: KillPoint;
  readonly call: number;
  readonly warmups: number;
}

/**
 * Starts a crash child script, waits for it to be ARMED and then to announce `POINT …`, kills it
 * with SIGKILL there, checks it died by that signal, and returns the POINT line and every line it said.
 */
export async function sigkillAtAnnouncedPoint(
  script: string,
  args: readonly string[],
  expected = "POINT",
): Promise<{ point: string; lines: readonly string[] }> {
  const child = ChildScript.start(script, [...args]);
  let point: string;
  try {
    const armed = await child.waitFor((l) => l.startsWith("ARMED") || l.startsWith("FAILED"), 0, "ARMED");
    const hit = await child.waitFor(
      (l) => l.startsWith("POINT ") || l.startsWith("FAILED") || l.startsWith("UNEXPECTED-END"),
      armed.index,
      expected,
    );
    point = hit.line;
  } finally {
    await child.stop();
  }
  const exit = await child.exited;
  assert.equal(
    exit.signal,
    "SIGKILL",
    `the child must die by SIGKILL, not ${JSON.stringify(exit)}:\n${child.lines.join("\n")}\n${child.stderr}`,
  );
  assert.match(point, /^POINT /, child.lines.join("\n"));
  return { point, lines: [...child.lines] };
}

/** Starts the child on the store, waits for `POINT <point>`, kills it with SIGKILL and returns what it said. */
export async function killAtPoint(run: KillRun): Promise<ChildLog> {
  const { lines } = await sigkillAtAnnouncedPoint(
    CHILD,
    [run.url, run.effectFile, run.point, String(run.call), String(run.warmups)],
    `POINT ${run.point}`,
  );
  assert.equal(
    lines.at(-1),
    `POINT ${run.point}`,
    `the child must stop at ${run.point}:\n${lines.join("\n")}`,
  );
  const words = (prefix: string) =>
    lines.filter((l) => l.startsWith(`${prefix} `)).map((l) => l.slice(prefix.length + 1));
  return {
    lines,
    invocations: words("INVOCATION"),
    admitted: words("ADMITTED"),
    dispatched: words("DISPATCHED"),
    effects: words("EFFECT"),
    completed: words("COMPLETED"),
    refused: words("REFUSED"),
  };
}
