import type { DetailSection, DetailSpec, DetailValue } from "./html-timeline-details.js";
import { dataBlockJson, type EncodedString, StringTable, stringReader } from "./html-timeline-strings.js";

/**
 * A detail panel as stored in the page: every string replaced by its index in the page's string
 * table, which the rows share (addresses, ids, field names and phases repeat across tens of
 * thousands of panels), as
 * [kind, id, title, pill class, pill text, notice, needs resolution, sections].
 */
type EncodedDetail = [number, number, number, number, number, number, 0 | 1, EncodedSection[]];
/** [title, empty line or -1, [field, value or values, field, value or values…]]. */
type EncodedSection = [number, number, (number | number[])[]];

/**
 * What the page's details block holds: its own string table and the panels. Apart from the rows
 * block, so the rows block stays small and the page parses this one only when a panel is first shown.
 */
export interface EncodedDetails {
  readonly s: readonly EncodedString[];
  readonly d: EncodedDetail[];
}

const KINDS = ["tool-action", "invocation"] as const;
/** The separator of the parts of a one-line value, stored apart. */
const JOINED = " · ";

/** The page's detail panels, kept as data until the page script draws one. */
export class DetailPanels {
  readonly #details: EncodedDetail[] = [];
  readonly #waiting: (() => DetailSpec)[] = [];
  readonly #strings = new StringTable();
  /** The store the page was read from, named in every printed command. */
  readonly storeUrl: string;

  constructor(storeUrl: string) {
    this.storeUrl = storeUrl;
  }

  #intern(value: string): number {
    return this.#strings.intern(value);
  }

  /**
   * A field's value: one line is its string's index, or, when it joins parts with " · " (event lines,
   * tool-action summaries), [-1, each part's index…], so times, phases and tool names are stored
   * once; several lines are their indexes.
   */
  #value(value: DetailValue): number | number[] {
    if (typeof value !== "string") return value.map((v) => this.#intern(v));
    const parts = value.split(JOINED);
    return parts.length < 2 ? this.#intern(value) : [-1, ...parts.map((p) => this.#intern(p))];
  }

  /**
   * Takes one panel, made when the block is written (its strings are then numbered most used
   * first), and returns its number
   * (its trigger names it as `data-detail="detail-N"`).
   */
  add(make: () => DetailSpec): number {
    this.#waiting.push(make);
    return this.#details.length + this.#waiting.length;
  }

  #encode(spec: DetailSpec): void {
    const sections = spec.sections.map(
      (section): EncodedSection => [
        this.#intern(section.title),
        section.empty === undefined ? -1 : this.#intern(section.empty),
        section.rows.flatMap(([field, value]) => [this.#intern(field), this.#value(value)]),
      ],
    );
    this.#details.push([
      KINDS.indexOf(spec.kind),
      this.#intern(spec.id),
      this.#intern(spec.title),
      this.#intern(spec.pill[0]),
      this.#intern(spec.pill[1]),
      this.#intern(spec.notice),
      spec.needsResolution ? 1 : 0,
      sections,
    ]);
  }

  /** The panels and their strings as a JSON data block's text. */
  json(): string {
    const specs = this.#waiting.splice(0).map((make) => make());
    // The panels' strings enter the table most used first, so field names and titles get short indexes.
    const uses = new Map<string, number>();
    const use = (value: string) => uses.set(value, (uses.get(value) ?? 0) + 1);
    for (const spec of specs) {
      for (const value of [spec.id, spec.title, ...spec.pill, spec.notice]) use(value);
      for (const section of spec.sections) {
        use(section.title);
        if (section.empty !== undefined) use(section.empty);
        for (const [field, value] of section.rows) {
          use(field);
          if (typeof value === "string") for (const part of value.split(JOINED)) use(part);
          else for (const v of value) use(v);
        }
      }
    }
    for (const [value] of [...uses].sort((a, b) => b[1] - a[1])) this.#intern(value);
    for (const spec of specs) this.#encode(spec);
    const encoded: EncodedDetails = { s: this.#strings.entries(), d: this.#details };
    return dataBlockJson(encoded);
  }
}

/** The panel with id `detail-N` from the details block's text (what the page script draws). */
export function decodeDetail(json: string, id: string): DetailSpec {
  const { s, d } = JSON.parse(json) as EncodedDetails;
  const encoded = d[Number(id.replace(/^detail-/, "")) - 1];
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
