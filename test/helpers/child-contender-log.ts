import type { ChildScript } from "./child-process.js";

/** One `STEP` report of a contender process (see child-contender.ts). */
export interface Step {
  readonly owned: number;
  readonly lifecycle: string;
  readonly invocations: readonly string[];
}

/** Parses one `STEP owned=N lifecycle=L invocations=ID=STATE,...|none` line. */
export function parseStep(line: string): Step | undefined {
  const m = /^STEP owned=(\d+) lifecycle=(\S+) invocations=(\S+)$/.exec(line);
  if (!m) return undefined;
  return {
    owned: Number(m[1]),
    lifecycle: m[2] ?? "",
    invocations: m[3] === "none" ? [] : (m[3] ?? "").split(","),
  };
}

/** The STEP reports a process made between two line indexes. */
export function steps(child: ChildScript, from = 0, to = child.lines.length): Step[] {
  return child.lines.slice(from, to).flatMap((l) => parseStep(l) ?? []);
}

/** Waits until the process has reported `count` more steps after line `from`. */
export async function waitSteps(
  child: ChildScript,
  count: number,
  from = child.lines.length,
): Promise<number> {
  const reached = (line: string, index: number) =>
    line.startsWith("STEP ") && steps(child, from, index + 1).length >= count;
  return (await child.waitFor(reached, from, `${count} steps`)).index;
}

/** Asks the process to close its manager (releasing its lease) and waits until it has exited. */
export async function exit(child: ChildScript): Promise<void> {
  child.send("EXIT");
  await child.waitForPrefix("CLOSED");
  await child.exited;
}
