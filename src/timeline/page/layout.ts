/**
 * The page's data layout: what the renderer writes into the page's JSON blocks and the page's own
 * script reads back. Both sides are typed by these declarations, so they cannot drift apart.
 */

/**
 * A string in the page's string table: the text itself, or [index of its prefix, the rest]. Ids,
 * addresses and times share long prefixes (`participant…:alpha:41:tool=2` is its invocation's id and
 * `:tool=2`), so each prefix is stored once.
 */
export type EncodedString = string | [number, string];

/**
 * One tool action as the page script draws its mark and lane (strings as table indexes, times in ms
 * from the invocation's start, null when unknown):
 * [id, settlement, settlement class, 0 | 1 needs resolution | 2 resolved, admission ordinal,
 *  tool_call_id, MCP tool name or -1, details panel, admitted, dispatched, settled].
 */
export type EncodedMark = [
  number,
  number,
  number,
  0 | 1 | 2,
  number,
  number,
  number,
  number,
  number | null,
  number | null,
  number | null,
];

/**
 * One invocation row: [id, episode, status key, status class, status label, clock time, duration
 * in ms or null, details panel, refusals as [code, count, the refused tools, when they were
 * refused]…, v2 [candidate, disposition,
 * predecessor, meta line] or 0, marks].
 */
export type EncodedRow = [
  number,
  number,
  number,
  number,
  number,
  number,
  number | null,
  number,
  [number, number, number, number][],
  [number, number, number, number] | 0,
  EncodedMark[],
];

/** What the page's rows block holds: the shared string table and each participant section's rows. */
export interface EncodedRows {
  readonly s: readonly EncodedString[];
  readonly p: EncodedRow[][];
}

/**
 * A detail panel as stored in the page: every string replaced by its index in the page's string
 * table, which the rows share (addresses, ids, field names and phases repeat across tens of
 * thousands of panels), as
 * [kind, id, title, pill class, pill text, notice, needs resolution, sections].
 */
export type EncodedDetail = [number, number, number, number, number, number, 0 | 1, EncodedSection[]];
/** [title, empty line or -1, [field, value or values, field, value or values…]]. */
export type EncodedSection = [number, number, (number | number[])[]];

/**
 * What the page's details block holds: its own string table and the panels. Apart from the rows
 * block, so the rows block stays small and the page parses this one only when a panel is first shown.
 */
export interface EncodedDetails {
  readonly s: readonly EncodedString[];
  readonly d: EncodedDetail[];
}

/** Panels per details block: the first panel opened parses one block of this many, not all of them. */
export const PANELS_PER_BLOCK = 500;

/** The glyph of each settlement class on marks and in the legend. */
export const GLYPHS: Readonly<Record<string, string>> = {
  succeeded: "✓",
  failed: "✕",
  partial_success: "◐",
  withheld: "–",
  indeterminate: "?",
  other: "•",
};
