import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/** Why an input file was not read. */
export const InputFileRefusal = {
  /** The path names a FIFO, device, directory or socket: reading it could block, never end or fail. */
  not_regular: "input.not-regular",
  /** The file holds more bytes than the reader's limit; only the limit plus one byte was read. */
  too_large: "input.too-large",
  /** The file could not be opened or read (missing, no permission, I/O error). */
  unreadable: "input.unreadable",
} as const;
/** An input-file refusal. */
export type InputFileRefusal = (typeof InputFileRefusal)[keyof typeof InputFileRefusal];

/** The text of an input file, or why it was not read. */
export type InputFileResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly refusal: InputFileRefusal; readonly message: string };

function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a plain file";
}

function notRegular(path: string, stats: Stats): InputFileResult {
  return {
    ok: false,
    refusal: InputFileRefusal.not_regular,
    message: `${path} is ${kindOf(stats)}, not a regular file`,
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Why the existing path is not a regular file, or undefined when it is one or does not exist (a missing
 * file is the reader's finding, not a usage error). Never opens or reads the path.
 */
export function nonRegularInputFile(path: string): string | undefined {
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch {
    return undefined;
  }
  const refused = stats.isFile() ? undefined : notRegular(path, stats);
  return refused && !refused.ok ? refused.message : undefined;
}

/**
 * Reads a regular file as UTF-8, reading at most `maxBytes + 1` bytes. A FIFO, device, directory or
 * socket is refused without a blocking open or a read, so no input can hang or exhaust the process.
 */
export function readInputFile(path: string, maxBytes: number): InputFileResult {
  let fd: number;
  try {
    // Non-blocking, so opening a FIFO with no writer returns at once; fstat then refuses it.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const stats = (() => {
      try {
        return statSync(path);
      } catch {
        return undefined;
      }
    })();
    if (stats && !stats.isFile()) return notRegular(path, stats);
    return {
      ok: false,
      refusal: InputFileRefusal.unreadable,
      message: `cannot read ${path}: ${reason(error)}`,
    };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return notRegular(path, stats);
    const chunks: Buffer[] = [];
    let total = 0;
    while (total <= maxBytes) {
      const chunk = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    if (total > maxBytes) {
      return {
        ok: false,
        refusal: InputFileRefusal.too_large,
        message: `${path} is larger than ${maxBytes} bytes`,
      };
    }
    return { ok: true, text: Buffer.concat(chunks, total).toString("utf8") };
  } catch (error) {
    return {
      ok: false,
      refusal: InputFileRefusal.unreadable,
      message: `cannot read ${path}: ${reason(error)}`,
    };
  } finally {
    closeSync(fd);
  }
}
