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
 * Counts every string a panel names, with repeats, in the order the page has always counted them: a
 * one-line value counts as its parts. Plain loops, not a generator: a long history's page counts
 * millions of strings.
 */
function countStrings(spec: DetailSpec, uses: Map<string, number>): void {
  const count = (value: string) => {
    uses.set(value, (uses.get(value) ?? 0) + 1);
  };
  count(spec.id);
  count(spec.title);
  for (const pill of spec.pill) count(pill);
  count(spec.notice);
  for (const section of spec.sections) {
    count(section.title);
    if (section.empty !== undefined) count(section.empty);
    for (const [field, value] of section.rows) {
      count(field);
      if (typeof value !== "string") for (const item of value) count(item);
      else if (!value.includes(JOINED)) count(value);
      else for (const part of value.split(JOINED)) count(part);
    }
  }
}

/** One details block: its own string table (most used strings first, so they get short indexes) and panels. */
function encodeBlock(specs: readonly DetailSpec[]): EncodedDetails {
  const strings = new StringTable();
  const uses = new Map<string, number>();
  for (const spec of specs) countStrings(spec, uses);
  // A stable sort: strings used as often keep the order they were first met in.
  for (const [value] of [...uses].sort((a, b) => b[1] - a[1])) strings.intern(value);
  const intern = (value: string) => strings.intern(value);
  // One line is its string's index, or, when it joins parts with " · " (event lines, tool-action
  // summaries), [-1, each part's index…], so times, phases and tool names are stored once.
  const encodeValue = (value: DetailValue): number | number[] => {
    if (typeof value !== "string") return value.map(intern);
    if (!value.includes(JOINED)) return intern(value);
    const encoded = [-1];
    for (const part of value.split(JOINED)) encoded.push(intern(part));
    return encoded;
  };
  const encodeRows = (rows: DetailSection["rows"]): (number | number[])[] => {
    const encoded: (number | number[])[] = [];
    for (const [field, value] of rows) encoded.push(intern(field), encodeValue(value));
    return encoded;
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
          encodeRows(section.rows),
        ],
      ),
    ],
  );
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
