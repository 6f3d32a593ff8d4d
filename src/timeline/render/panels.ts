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

/** Every string a panel names, with repeats: a one-line value counts as its parts. */
function* panelStrings(spec: DetailSpec): Generator<string> {
  yield* [spec.id, spec.title, ...spec.pill, spec.notice];
  for (const section of spec.sections) {
    yield section.title;
    if (section.empty !== undefined) yield section.empty;
    for (const [field, value] of section.rows) {
      yield field;
      if (typeof value === "string") yield* value.split(JOINED);
      else yield* value;
    }
  }
}

/** One details block: its own string table (most used strings first, so they get short indexes) and panels. */
function encodeBlock(specs: readonly DetailSpec[]): EncodedDetails {
  const strings = new StringTable();
  const uses = new Map<string, number>();
  for (const spec of specs)
    for (const value of panelStrings(spec)) uses.set(value, (uses.get(value) ?? 0) + 1);
  for (const [value] of [...uses].sort((a, b) => b[1] - a[1])) strings.intern(value);
  const intern = (value: string) => strings.intern(value);
  // One line is its string's index, or, when it joins parts with " · " (event lines, tool-action
  // summaries), [-1, each part's index…], so times, phases and tool names are stored once.
  const encodeValue = (value: DetailValue): number | number[] => {
    if (typeof value !== "string") return value.map(intern);
    const parts = value.split(JOINED);
    return parts.length < 2 ? intern(value) : [-1, ...parts.map(intern)];
  };
  const d = specs.map(
    (spec): EncodedDetail => [
      KINDS.indexOf(spec.kind),
      intern(spec.id),
      intern(spec.title),
      intern(spec.pill[0]),
      intern(spec.pill[1]),
      intern(spec.notice),
      spec.needsResolution ? 1 : 0,
      spec.sections.map(
        (section): EncodedSection => [
          intern(section.title),
          section.empty === undefined ? -1 : intern(section.empty),
          section.rows.flatMap(([field, value]) => [intern(field), encodeValue(value)]),
        ],
      ),
    ],
  );
  return { s: strings.entries(), d };
}

/** The page's detail panels, kept as data until the page script draws one. */
export class DetailPanels {
  readonly #waiting: (() => DetailSpec)[] = [];
  /** The store the page was read from, named in every printed command. */
  readonly storeUrl: string;

  constructor(storeUrl: string) {
    this.storeUrl = storeUrl;
  }

  /**
   * Takes one panel, made when the blocks are written, and returns its number (its trigger names it
   * as `data-detail="detail-N"`; it is in block ⌊(N − 1) / PANELS_PER_BLOCK⌋).
   */
  add(make: () => DetailSpec): number {
    this.#waiting.push(make);
    return this.#waiting.length;
  }

  /**
   * The panels as JSON data blocks' texts, PANELS_PER_BLOCK to a block, each made when it is asked
   * for: only one block's panels are ever held at once.
   */
  *blocks(): Generator<string> {
    for (let from = 0; from < this.#waiting.length; from += PANELS_PER_BLOCK) {
      const specs = this.#waiting.slice(from, from + PANELS_PER_BLOCK).map((make) => make());
      yield dataBlockJson(encodeBlock(specs));
    }
  }
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
