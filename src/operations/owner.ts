import { randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import { codeOf } from "../records/index.js";
import type { ControlPlaneStore, Lease } from "../store/index.js";

/** What makes a pid meaningful: the same kernel boot and the same PID namespace. */
interface PidScope {
  readonly bootId: string;
  readonly pidNamespace: string;
}

let scope: PidScope | null | undefined;

/** This process's boot id and PID namespace, or null where the OS does not tell (then no owner is provably dead). */
function pidScope(): PidScope | null {
  if (scope !== undefined) return scope;
  try {
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const pidNamespace = /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    scope = /^[0-9a-f-]{36}$/.test(bootId) && pidNamespace ? { bootId, pidNamespace } : null;
  } catch {
    scope = null;
  }
  return scope;
}

/**
 * A scheduler owner id `HOST/PID/UUID/boot:BOOT_ID/pidns:INODE`: the pid is only meaningful with the
 * boot and PID namespace it lives in, so both are named. Without them (no /proc) it is `HOST/PID/UUID`,
 * an owner that is never provably dead.
 */
export function newOwnerId(): string {
  const base = `${hostname()}/${process.pid}/${randomUUID()}`;
  const here = pidScope();
  return here ? `${base}/boot:${here.bootId}/pidns:${here.pidNamespace}` : base;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}

/**
 * True only when the owner ran on this host, in this boot and this PID namespace, in a process that no
 * longer exists; then its lease can be taken at once instead of after expiry. Any doubt (another host,
 * boot or namespace, an id of the old form, a live or reused pid) is false.
 */
export function isDeadLocalOwner(ownerId: string): boolean {
  const here = pidScope();
  const parts = ownerId.split("/");
  if (!here || parts.length !== 5) return false;
  const [host, pidText, , boot, namespace] = parts;
  if (host !== hostname() || boot !== `boot:${here.bootId}` || namespace !== `pidns:${here.pidNamespace}`)
    return false;
  if (!/^[1-9][0-9]{0,9}$/.test(pidText ?? "")) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false;
  return !isAlive(pid);
}

/** Takes a participant's lease: free or expired, or held by a provably dead owner on this host. */
export async function takeParticipantLease(
  store: ControlPlaneStore,
  participant: string,
  ownerId: string,
  ttlMs: number,
): Promise<Lease | undefined> {
  const lease = await store.acquireLease(participant, ownerId, ttlMs);
  if (lease) return lease;
  const holder = await store.getLease(participant);
  if (!holder || !isDeadLocalOwner(holder.ownerId)) return undefined;
  return store.acquireLease(participant, ownerId, ttlMs, { replacing: holder.ownerId });
}

/** The host and pid an owner id names, or undefined for an id of another form. */
export function ownerProcess(ownerId: string): { readonly host: string; readonly pid: number } | undefined {
  const [host, pidText] = ownerId.split("/");
  if (host === undefined || !/^[1-9][0-9]{0,9}$/.test(pidText ?? "")) return undefined;
  return { host, pid: Number(pidText) };
}
