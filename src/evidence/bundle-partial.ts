import { type FileHandle, open, readdir, rm } from "node:fs/promises";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { BundleUnwritableError } from "./bundle-lines.js";

/**
 * The name a bundle is written under before its rename: `FILE.partial-PID@HOST`. The host is in the
 * name so an export cleaning stale partials (`createPartial`) judges only its own machine's processes,
 * never one on another host writing to a shared folder.
 */
export function partialName(file: string, pid = process.pid, host = hostname()): string {
  return `${file}.partial-${pid}@${host}`;
}

/** Whether a process with this id runs on this machine (signal 0 delivers nothing, it only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the partial files an earlier export to the same FILE left when it was killed (SIGKILL, a
 * power cut): those of this host whose process no longer runs. A partial of a live export, of another
 * host, or of an id since reused by another process is left; only this host's dead exports are judged.
 */
async function removeStalePartials(file: string): Promise<void> {
  const prefix = `${basename(file)}.partial-`;
  const host = hostname();
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = /^(\d+)@(.+)$/.exec(name.slice(prefix.length));
    if (match === null || match[2] !== host) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || !Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue;
    await rm(join(dirname(file), name), { force: true });
  }
}

/**
 * Creates the partial file a bundle is written to, after removing stale partials of FILE. A folder
 * that is missing, not a folder, or not writable is `evidence.bundle-unwritable`: nothing is created.
 */
export async function createPartial(file: string): Promise<{ partial: string; handle: FileHandle }> {
  await removeStalePartials(file);
  const partial = partialName(file);
  try {
    return { partial, handle: await open(partial, "wx") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR" && code !== "EACCES" && code !== "EROFS" && code !== "EEXIST")
      throw error;
    const why =
      code === "ENOENT" || code === "ENOTDIR"
        ? `its folder ${dirname(file)} does not exist`
        : code === "EEXIST"
          ? `${partial} exists (another export by this process is writing it)`
          : `its folder ${dirname(file)} is not writable`;
    throw new BundleUnwritableError(`cannot write the bundle ${file}: ${why}; nothing was written`, {
      cause: error,
    });
  }
}
