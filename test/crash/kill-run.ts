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

/** Starts the child on the store, waits for `POINT <point>`, kills it with SIGKILL and returns what it said. */
export async function killAtPoint(run: KillRun): Promise<ChildLog> {
  const child = ChildScript.start(CHILD, [
    run.url,
    run.effectFile,
    run.point,
    String(run.call),
    String(run.warmups),
  ]);
  try {
    const armed = await child.waitForPrefix("ARMED");
    await child.waitFor(
      (line) => line.startsWith("POINT ") || line.startsWith("FAILED") || line.startsWith("UNEXPECTED-END"),
      armed.index,
      `POINT ${run.point}`,
    );
  } finally {
    await child.stop();
  }
  const exit = await child.exited;
  assert.equal(
    exit.signal,
    "SIGKILL",
    `the child must die by SIGKILL, not ${JSON.stringify(exit)}\n${child.stderr}`,
  );
  const lines = [...child.lines];
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
