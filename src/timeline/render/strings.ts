import type { EncodedString } from "../page/index.js";

/** Strings shorter than this are stored whole: a reference would not make them shorter. */
const SPLIT_FROM = 16;
/** No entry is built from references nested deeper than this, so reading one never recurses far. */
const MAX_DEPTH = 8;

/** The page's string table: every string the rows (or the panels) name, interned, prefixes shared. */
export class StringTable {
  readonly #entries: EncodedString[] = [];
  readonly #depths: number[] = [];
  readonly #index = new Map<string, number>();

  /** The index of `value` in the table, adding it (and its prefix) when new. */
  intern(value: string): number {
    const known = this.#index.get(value);
    if (known !== undefined) return known;
    let entry: EncodedString = value;
    let depth = 0;
    if (value.length >= SPLIT_FROM) {
      // The prefix goes in first, so an entry only ever names earlier ones.
      const colon = value.lastIndexOf(":");
      if (colon > 0) {
        const head = this.intern(value.slice(0, colon));
        depth = 1 + (this.#depths[head] ?? 0);
        entry = [head, value.slice(colon)];
      }
      if (depth > MAX_DEPTH) {
        entry = value;
        depth = 0;
      }
    }
    const index = this.#entries.length;
    this.#entries.push(entry);
    this.#depths.push(depth);
    this.#index.set(value, index);
    return index;
  }

  /** The table as stored in the page. */
  entries(): readonly EncodedString[] {
    return this.#entries;
  }
}

/** A reader of a stored table: the string at an index (what the page script does). */
export function stringReader(entries: readonly EncodedString[]): (index: number) => string {
  const decoded: (string | undefined)[] = [];
  const read = (index: number): string => {
    const done = decoded[index];
    if (done !== undefined) return done;
    const entry = entries[index];
    // Only earlier entries are named, so a malformed table cannot loop.
    const part = (at: number) => (at < index ? read(at) : "");
    const text = entry === undefined ? "" : typeof entry === "string" ? entry : part(entry[0]) + entry[1];
    decoded[index] = text;
    return text;
  };
  return read;
}

/** JSON for a data block: `<` escaped so no string can end the block or open a tag. */
export function dataBlockJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}
