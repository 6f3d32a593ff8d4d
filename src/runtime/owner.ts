import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** A scheduler owner id that names its host and process, so a dead local owner can be recognised. */
export function newOwnerId(): string {
  return `${hostname()}/${process.pid}/${randomUUID()}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True only when the owner ran on this host in a process that no longer exists; then its lease
 * can be taken at once instead of after expiry. Any doubt (another host, a live or reused pid) is false.
 */
export function isDeadLocalOwner(ownerId: string): boolean {
  const [host, pidText] = ownerId.split("/");
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return false;
  return !isAlive(pid);
}
