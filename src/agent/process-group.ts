import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";

/** How one agent process ended. */
export interface AgentExit {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when it was stopped because its invocation's signal aborted (the timeout). */
  readonly stopped: boolean;
}

/** Grace between SIGTERM and SIGKILL when a process group is stopped. */
const KILL_GRACE_MS = 2_000;

/**
 * The live (not zombie) processes of a group, from /proc where there is one. An orphan that exited
 * stays a zombie until some init reaps it, and `kill(-pgid, 0)` would still count it.
 */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return signalGroup(pgid, 0) ? [pgid] : [];
  }
  const members: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && Number(fields[2]) === pgid) members.push(Number(entry));
  }
  return members;
}

/** Signals every process in the group; false when none is left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs `command` through /bin/sh as the leader of a new process group, its stdout and stderr
 * appended to `logPath`. When `signal` aborts, the whole group gets SIGTERM, then SIGKILL after a
 * grace period; once the leader has exited, whatever it left in its group is ended the same way.
 */
export async function runInProcessGroup(options: {
  readonly command: string;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly logPath: string;
  readonly signal: AbortSignal;
  readonly onStart?: (pid: number) => void;
}): Promise<AgentExit> {
  const log = openSync(options.logPath, "a", 0o600);
  let child: ChildProcess;
  try {
    child = spawn("/bin/sh", ["-c", options.command], {
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      stdio: ["ignore", log, log],
      detached: true,
    });
  } finally {
    closeSync(log);
  }
  const pid = child.pid;
  if (pid === undefined) {
    return new Promise((resolve) =>
      child.once("error", () => resolve({ exitCode: null, signal: null, stopped: false })),
    );
  }
  options.onStart?.(pid);
  let stopped = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopped = true;
    signalGroup(pid, "SIGTERM");
    killTimer = setTimeout(() => signalGroup(pid, "SIGKILL"), KILL_GRACE_MS);
  };
  if (options.signal.aborted) stop();
  else options.signal.addEventListener("abort", stop, { once: true });
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, sig) => resolve({ code, signal: sig })),
  );
  options.signal.removeEventListener("abort", stop);
  await endGroup(pid);
  if (killTimer) clearTimeout(killTimer);
  return { exitCode: exit.code, signal: exit.signal, stopped };
}

/** Ends what is left of a group: SIGTERM, then SIGKILL for anything still there after the grace. */
async function endGroup(pgid: number): Promise<void> {
  if (groupMembers(pgid).length === 0 || !signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + KILL_GRACE_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    if (groupMembers(pgid).length === 0) return;
  }
  signalGroup(pgid, "SIGKILL");
}
