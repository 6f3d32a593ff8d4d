import type { Writable } from "node:stream";

/** A top-level field of a streamed JSON object: a value, or an array read a page at a time. */
export type StreamedField =
  | { readonly value: unknown }
  | { readonly pages: AsyncIterable<readonly unknown[]>; readonly map?: (item: never) => unknown };

/**
 * Writes `{"name": ...}` to `out` exactly as `JSON.stringify(object, null, 2)` and a newline would,
 * but an array field is written one page at a time and each page waits for `out` to drain: memory
 * holds one page and one page's text, however long the array (`raes history --json`).
 *
 * @example
 * await writeJsonObject(process.stdout, { events: { pages: eventPages(store) } });
 */
export async function writeJsonObject(
  out: Writable,
  fields: Readonly<Record<string, StreamedField>>,
): Promise<void> {
  try {
    await writeFields(out, fields);
  } catch (error) {
    // A reader that went away has all it wanted; the pages it did not read are not read.
    if (error !== CLOSED) throw error;
  }
}

/** Thrown inside the writer once `out` is closed or failed. */
const CLOSED = Symbol("closed");

async function writeFields(out: Writable, fields: Readonly<Record<string, StreamedField>>): Promise<void> {
  const entries = Object.entries(fields);
  if (entries.length === 0) return write(out, "{}\n");
  await write(out, "{\n");
  for (const [k, [name, field]] of entries.entries()) {
    const key = `  ${JSON.stringify(name)}: `;
    const end = k === entries.length - 1 ? "\n" : ",\n";
    if ("value" in field) {
      await write(out, `${key}${indented(field.value, "  ")}${end}`);
      continue;
    }
    const map = (field.map ?? ((item: unknown) => item)) as (item: unknown) => unknown;
    let text = `${key}[`;
    let empty = true;
    for await (const page of field.pages) {
      for (const item of page) {
        text += `${empty ? "\n" : ",\n"}    ${indented(map(item), "    ")}`;
        empty = false;
      }
      await write(out, text);
      text = "";
    }
    await write(out, `${text}${empty ? "]" : "\n  ]"}${end}`);
  }
  await write(out, "}\n");
}

/** A value's pretty JSON, its inner lines indented by `indent` (JSON strings hold no raw newline). */
function indented(value: unknown, indent: string): string {
  return (JSON.stringify(value, null, 2) ?? "null").replaceAll("\n", `\n${indent}`);
}

/** Writes `text` and resolves once `out` takes more (at once, or when it drains); rejects with CLOSED once it cannot. */
function write(out: Writable, text: string): Promise<void> {
  if (out.destroyed || out.writableEnded) return Promise.reject(CLOSED);
  if (text.length === 0 || out.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (drained: boolean) => () => {
      out.off("drain", onDrain);
      out.off("close", onClose);
      out.off("error", onClose);
      if (drained) resolve();
      else reject(CLOSED);
    };
    const onDrain = settle(true);
    const onClose = settle(false);
    out.once("drain", onDrain);
    out.once("close", onClose);
    out.once("error", onClose);
  });
}

/** Writes `text` to `out` and waits until it drains: how a long listing for people respects backpressure. */
export async function writeText(out: Writable, text: string): Promise<void> {
  try {
    await write(out, text);
  } catch (error) {
    if (error !== CLOSED) throw error;
  }
}
