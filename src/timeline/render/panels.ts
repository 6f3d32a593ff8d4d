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
 * One details block: its own string table (most used strings first, so they get short indexes) and
 * panels. One pass numbers each string as first met and counts its uses (a one-line value counts as
 * its parts), in the order the page has always counted them; the table is then built most used
 * first (a stable sort: strings used as often keep the order they were first met in) and each
 * number is replaced by its string's index. Plain loops: a long history's page names millions of
 * strings.
 */
function encodeBlock(specs: readonly DetailSpec[]): EncodedDetails {
  const first = new Map<string, number>();
  const values: string[] = [];
  const uses: number[] = [];
  const met = (value: string): number => {
    const known = first.get(value);
    if (known !== undefined) {
      uses[known] = (uses[known] as number) + 1;
      return known;
    }
    first.set(value, values.length);
    uses.push(1);
    return values.push(value) - 1;
  };
  // One line is its string's number, or, when it joins parts with " · " (event lines, tool-action
  // summaries), [-1, each part's number…], so times, phases and tool names are stored once.
  const encodeValue = (value: DetailValue): number | number[] => {
    if (typeof value !== "string") return value.map(met);
    if (!value.includes(JOINED)) return met(value);
    const encoded = [-1];
    for (const part of value.split(JOINED)) encoded.push(met(part));
    return encoded;
  };
  const d: EncodedDetail[] = [];
  for (const spec of specs) {
    const kind = KINDS.indexOf(spec.kind);
    const id = met(spec.id);
    const title = met(spec.title);
    const pillClass = met(spec.pill[0]);
    const pillText = met(spec.pill[1]);
    const notice = met(spec.notice);
    const sections: EncodedSection[] = [];
    for (const section of spec.sections) {
      const sectionTitle = met(section.title);
      const empty = section.empty === undefined ? -1 : met(section.empty);
      const rows: (number | number[])[] = [];
      for (const [field, value] of section.rows) rows.push(met(field), encodeValue(value));
      sections.push([sectionTitle, empty, rows]);
    }
    d.push([kind, id, title, pillClass, pillText, notice, spec.needsResolution ? 1 : 0, sections]);
  }
  const strings = new StringTable();
  const index = new Array<number>(values.length);
  const order = Array.from(values.keys()).sort((a, b) => (uses[b] as number) - (uses[a] as number) || a - b);
  for (const k of order) index[k] = strings.intern(values[k] as string);
  const at = (k: number) => index[k] as number;
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
  return { s: strings.entries(), d };
}

/**
 * The panels as JSON data blocks' texts, PANELS_PER_BLOCK to a block, in order, each block made when
 * it is asked for: only one block's panels are ever held at once.
 */
export function* detailBlocks(specs: Iterable<DetailSpec>): Generator<string> {
  let block: DetailSpec[] = [];
  for (const spec of specs) {
    block.push(spec);
    if (block.length === PANELS_PER_BLOCK) {
      yield dataBlockJson(encodeBlock(block));
      block = [];
    }
  }
  if (block.length > 0) yield dataBlockJson(encodeBlock(block));
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
