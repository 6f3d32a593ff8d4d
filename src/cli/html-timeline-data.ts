import type { DetailSection, DetailSpec, DetailValue } from "./html-timeline-details.js";

/**
 * A detail panel as stored in the page: every string replaced by its index in one shared table
 * (addresses, field names and phases repeat across tens of thousands of panels), as
 * [kind, id, title, pill class, pill text, notice, needs resolution, sections].
 */
type EncodedDetail = [number, number, number, number, number, number, 0 | 1, EncodedSection[]];
/** [title, empty line or -1, [field, value or values]…]. */
type EncodedSection = [number, number, [number, number | number[]][]];

/** What the page's data block holds: the string table and the panels. */
export interface EncodedDetails {
  readonly s: string[];
  readonly d: EncodedDetail[];
}

const KINDS = ["tool-action", "invocation"] as const;

/** The page's detail panels, kept as data until the page script draws one. */
export class DetailPanels {
  readonly #strings: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #details: EncodedDetail[] = [];
  /** The store the page was read from, named in every printed command. */
  readonly storeUrl: string;

  constructor(storeUrl: string) {
    this.storeUrl = storeUrl;
  }

  #intern(value: string): number {
    let index = this.#index.get(value);
    if (index === undefined) {
      index = this.#strings.length;
      this.#strings.push(value);
      this.#index.set(value, index);
    }
    return index;
  }

  #value(value: DetailValue): number | number[] {
    return typeof value === "string" ? this.#intern(value) : value.map((v) => this.#intern(v));
  }

  /** Stores one panel and returns the id its trigger names in `data-detail`. */
  add(spec: DetailSpec): string {
    const sections = spec.sections.map(
      (section): EncodedSection => [
        this.#intern(section.title),
        section.empty === undefined ? -1 : this.#intern(section.empty),
        section.rows.map(([field, value]) => [this.#intern(field), this.#value(value)]),
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
    return `detail-${this.#details.length}`;
  }

  /** The panels as a JSON data block's text: `<` escaped so no string can end the block or open a tag. */
  json(): string {
    const encoded: EncodedDetails = { s: this.#strings, d: this.#details };
    return JSON.stringify(encoded).replace(/</g, "\\u003c");
  }
}

/** The panel with id `detail-N` from a data block's text (what the page script draws). */
export function decodeDetail(json: string, id: string): DetailSpec {
  const { s, d } = JSON.parse(json) as EncodedDetails;
  const encoded = d[Number(id.replace(/^detail-/, "")) - 1];
  if (!encoded) throw new Error(`no detail ${id}`);
  const text = (i: number) => s[i] ?? "";
  const [kind, panelId, title, pillClass, pillText, notice, needs, sections] = encoded;
  return {
    kind: KINDS[kind] ?? "invocation",
    id: text(panelId),
    title: text(title),
    pill: [text(pillClass), text(pillText)],
    notice: text(notice),
    needsResolution: needs === 1,
    sections: sections.map(([sectionTitle, empty, rows]): DetailSection => {
      const fields = rows.map(
        ([field, value]) => [text(field), typeof value === "number" ? text(value) : value.map(text)] as const,
      );
      return empty === -1
        ? { title: text(sectionTitle), rows: fields }
        : { title: text(sectionTitle), rows: fields, empty: text(empty) };
    }),
  };
}
