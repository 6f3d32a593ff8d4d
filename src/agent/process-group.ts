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
 * The watchdog's grace between SIGTERM and SIGKILL: longer than a gateway takes to close its
 * upstream (2 s after stdin EOF, then 2 s after SIGTERM), so an upstream in its own group goes too.
 */
const WATCHDOG_GRACE_S = 5;

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
 * The group's watchdog, run by the group leader before it becomes the agent. A background subshell
 * (in the agent's process group) blocks reading fd 3, a pipe whose only write end `raes` holds. The
 * kernel closes that end when `raes` exits for any reason, SIGKILL included, and the read returns
 * end-of-file: the watchdog then ignores SIGTERM itself, sends SIGTERM to its whole group, and
 * SIGKILL after its grace. A blocking read is woken by the parent's death itself, so nothing polls
 * and nothing races a reused pid; `PR_SET_PDEATHSIG` would need a native addon and covers only one
 * process, not the group. While `raes` lives the watchdog is one idle shell that dies with the group
 * (it does not ignore SIGTERM until it fires). The leader closes fd 3 and execs the agent, so the
 * agent keeps the leader's pid and exit status.
 */
const WATCHDOG = [
  `(while read -r _ <&3; do :; done; trap '' TERM; kill -TERM 0; sleep ${WATCHDOG_GRACE_S}; kill -KILL 0) &`,
  "exec 3<&-",
  'exec /bin/sh -c "$1"',
].join("\n");

/**
 * Runs `command` through /bin/sh as the leader of a new process group, its stdout and stderr
 * appended to `logPath`. When `signal` aborts, the whole group gets SIGTERM, then SIGKILL after a
 * grace period; once the leader has exited, whatever it left in its group is ended the same way.
 * A watchdog in the group ends it the same way when this process dies, even by SIGKILL
 * (docs/guide/agents.md).
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
    child = spawn("/bin/sh", ["-c", WATCHDOG, "raes-agent", options.command], {
      env: options.env,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      // fd 3 is the watchdog's pipe: only this process holds its other end.
      stdio: ["ignore", log, log, "pipe"],
      detached: true,
    });
  } finally {
    closeSync(log);
  }
  const pid = child.pid;
  if (pid === undefined) {
    child.stdio[3]?.destroy();
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
  // After endGroup: closing it first would fire the watchdog, which outlives a SIGTERM by design.
  child.stdio[3]?.destroy();
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
