import { statSync } from "node:fs";
import { type FileHandle, open, readdir, rename, rm } from "node:fs/promises";
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
async function createPartial(file: string): Promise<{ partial: string; handle: FileHandle }> {
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
        ? `its folder ${dirname(file)} ${isFile(dirname(file)) ? "is not a folder" : "does not exist"}`
        : code === "EEXIST"
          ? `${partial} exists (another export by this process is writing it)`
          : `its folder ${dirname(file)} is not writable`;
    throw new BundleUnwritableError(`cannot write the bundle ${file}: ${why}; nothing was written`, {
      cause: error,
    });
  }
}

/** Whether `path` is there and not a folder (a file named as a bundle's folder). */
function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Makes a rename in `folder` durable; a platform that cannot open a folder for it (Windows) is left as it is. */
async function syncFolder(folder: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(folder, "r");
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "EPERM" && code !== "EINVAL" && code !== "EACCES") throw error;
  } finally {
    await handle?.close();
  }
}

/**
 * A bundle being written beside its FILE (`createPartial`): written through the file handle itself,
 * buffered a megabyte at a time, so it can be synced before it is closed (a stream over a handle never
 * lets that handle close while it holds it); `commit` gives it FILE's name, `discard` removes it.
 */
export class PartialBundle {
  readonly #file: string;
  readonly #partial: string;
  readonly #handle: FileHandle;
  #buffered: Buffer[] = [];
  #bytes = 0;

  private constructor(file: string, partial: string, handle: FileHandle) {
    this.#file = file;
    this.#partial = partial;
    this.#handle = handle;
  }

  /** Creates FILE's partial file, removing stale ones first; `evidence.bundle-unwritable` when it cannot. */
  static async create(file: string): Promise<PartialBundle> {
    const { partial, handle } = await createPartial(file);
    return new PartialBundle(file, partial, handle);
  }

  /** Appends text. */
  async put(text: string): Promise<void> {
    const bytes = Buffer.from(text);
    this.#buffered.push(bytes);
    this.#bytes += bytes.length;
    if (this.#bytes >= 1 << 20) await this.#flush();
  }

  /**
   * Syncs the file to disk before it takes FILE's name, and the folder after: a crash leaves the old
   * file or the whole new one, never a named bundle cut short.
   */
  async commit(): Promise<void> {
    await this.#flush();
    await this.#handle.sync();
    await this.#handle.close();
    await rename(this.#partial, this.#file);
    await syncFolder(dirname(this.#file));
  }

  /** Closes and removes the partial file: a failed export leaves nothing. */
  async discard(): Promise<void> {
    await this.#handle.close().catch(() => undefined);
    await rm(this.#partial, { force: true });
  }

  async #flush(): Promise<void> {
    const chunk = Buffer.concat(this.#buffered);
    this.#buffered = [];
    this.#bytes = 0;
    for (let at = 0; at < chunk.length; ) at += (await this.#handle.write(chunk, at)).bytesWritten;
  }
}
