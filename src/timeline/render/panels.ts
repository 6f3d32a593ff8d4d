import {
  type EncodedDetail,
  type EncodedDetails,
  type EncodedSection,
  PANELS_PER_BLOCK,
} from "../page/index.js";
import type { DetailSection, DetailSpec, DetailValue } from "./details.js";
import { dataBlockJson, StringTable, stringReader } from "./strings.js";

const KINDS = ["tool-action", "invocation"] as const;
/** The separator of the parts of a one-line value, stored apart. */
const JOINED = " · ";

/**
 * One details block, its panels taken one at a time: its own string table (most used strings
 * first, so they get short indexes) and panels. Each panel is encoded as it comes, its strings
 * numbered as first met and their uses counted (a one-line value counts as its parts), in the order
 * the page has always counted them, so the block holds numbers, not panels. `text` builds the table
 * most used first (a stable sort: strings used as often keep the order they were first met in) and
 * puts each string's index for its number. Plain loops: a long history's page names millions of
 * strings.
 */
export class BlockEncoder {
  readonly #first = new Map<string, number>();
  readonly #values: string[] = [];
  readonly #uses: number[] = [];
  #d: EncodedDetail[] = [];

  /** Panels taken since the last `text`. */
  get size(): number {
    return this.#d.length;
  }

  /** Takes the next panel. */
  add(spec: DetailSpec): void {
    // The strings in the order the page counts them: the head, then each section's.
    const head = [spec.id, spec.title, spec.pill[0], spec.pill[1], spec.notice].map((v) => this.#met(v));
    const sections: EncodedSection[] = [];
    for (const section of spec.sections) {
      const title = this.#met(section.title);
      const empty = section.empty === undefined ? -1 : this.#met(section.empty);
      const rows: (number | number[])[] = [];
      for (const [field, value] of section.rows) rows.push(this.#met(field), this.#value(value));
      sections.push([title, empty, rows]);
    }
    this.#d.push([
      KINDS.indexOf(spec.kind),
      head[0] as number,
      head[1] as number,
      head[2] as number,
      head[3] as number,
      head[4] as number,
      spec.needsResolution ? 1 : 0,
      sections,
    ]);
  }

  /** The block's JSON text, then empty for the next block. */
  text(): string {
    const values = this.#values;
    const uses = this.#uses;
    const strings = new StringTable();
    const index = new Array<number>(values.length);
    const order = Array.from(values.keys()).sort(
      (a, b) => (uses[b] as number) - (uses[a] as number) || a - b,
    );
    for (const k of order) index[k] = strings.intern(values[k] as string);
    const at = (k: number) => index[k] as number;
    const d = this.#d;
    for (const detail of d) {
      for (let i = 1; i <= 5; i += 1) detail[i] = at(detail[i] as number);
      for (const section of detail[7]) {
        section[0] = at(section[0]);
        if (section[1] !== -1) section[1] = at(section[1]);
        const rows = section[2];
        for (let i = 0; i < rows.length; i += 1) {
          const value = rows[i] as number | number[];
          if (typeof value === "number") rows[i] = at(value);
          else
            for (let j = value[0] === -1 ? 1 : 0; j < value.length; j += 1) value[j] = at(value[j] as number);
        }
      }
    }
    this.#first.clear();
    this.#values.length = 0;
    this.#uses.length = 0;
    this.#d = [];
    return dataBlockJson({ s: strings.entries(), d } satisfies EncodedDetails);
  }

  #met(value: string): number {
    const known = this.#first.get(value);
    if (known !== undefined) {
      this.#uses[known] = (this.#uses[known] as number) + 1;
      return known;
    }
    this.#first.set(value, this.#values.length);
    this.#uses.push(1);
    return this.#values.push(value) - 1;
  }

  /**
   * One line is its string's number, or, when it joins parts with " · " (event lines, tool-action
   * summaries), [-1, each part's number…], so times, phases and tool names are stored once.
   */
  #value(value: DetailValue): number | number[] {
    if (typeof value !== "string") return value.map((v) => this.#met(v));
    if (!value.includes(JOINED)) return this.#met(value);
    const encoded = [-1];
    for (const part of value.split(JOINED)) encoded.push(this.#met(part));
    return encoded;
  }
}

/**
 * The panels as JSON data blocks' texts, PANELS_PER_BLOCK to a block, in order, each block made when
 * it is asked for: only one block's panels are ever held at once, and as numbers.
 */
export function* detailBlocks(specs: Iterable<DetailSpec>): Generator<string> {
  const block = new BlockEncoder();
  for (const spec of specs) {
    block.add(spec);
    if (block.size === PANELS_PER_BLOCK) yield block.text();
  }
  if (block.size > 0) yield block.text();
}

/** The panel with id `detail-N` from the text of the details block that holds it (what the page script draws). */
export function decodeDetail(json: string, id: string): DetailSpec {
  const { s, d } = JSON.parse(json) as EncodedDetails;
  const encoded = d[(Number(id.replace(/^detail-/, "")) - 1) % PANELS_PER_BLOCK];
  if (!encoded) throw new Error(`no detail ${id}`);
  const text = stringReader(s);
  const [kind, panelId, title, pillClass, pillText, notice, needs, sections] = encoded;
  return {
    kind: KINDS[kind] ?? "invocation",
    id: text(panelId),
    title: text(title),
    pill: [text(pillClass), text(pillText)],
    notice: text(notice),
    needsResolution: needs === 1,
    sections: sections.map(([sectionTitle, empty, rows]): DetailSection => {
      const fields: (readonly [string, string | string[]])[] = [];
      for (let i = 0; i + 1 < rows.length; i += 2) {
        const value = rows[i + 1] ?? [];
        fields.push([
          text(Number(rows[i])),
          typeof value === "number"
            ? text(value)
            : value[0] === -1
              ? value.slice(1).map(text).join(JOINED)
              : value.map(text),
        ]);
      }
      return empty === -1
        ? { title: text(sectionTitle), rows: fields }
        : { title: text(sectionTitle), rows: fields, empty: text(empty) };
    }),
  };
}
