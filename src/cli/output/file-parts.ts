import { once } from "node:events";
import { createWriteStream, existsSync, realpathSync, renameSync, rmSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

/**
 * Writes the parts of a text to `file`, each taken from `parts` only once the file has taken the
 * ones before it (backpressure), so the text is never whole in memory. The parts go to a file
 * beside `file` that replaces it only when every part is written: a failure leaves `file` as it was.
 *
 * @example
 * await writeFileParts("timeline.html", timelineHtmlParts(input));
 */
export async function writeFileParts(file: string, parts: Iterable<string>): Promise<void> {
  // A symbolic link keeps pointing where it did: the file it names is replaced, not the link.
  const path = existsSync(file) ? realpathSync(file) : file;
  const partial = `${path}.${process.pid}.partial`;
  const out = createWriteStream(partial);
  try {
    await pipeline(Readable.from(parts, { objectMode: true }), out);
    renameSync(partial, path);
  } catch (error) {
    // A stream destroyed while its file was opening creates the file as it closes: removed after that.
    if (!out.closed) await once(out, "close").catch(() => undefined);
    rmSync(partial, { force: true });
    throw error;
  }
}
