// What the page's two scripts share. They are classic scripts inlined into one <script> element,
// after the constants the renderer writes in front of them (see ../index.ts), so these names are
// globals of the browser program only: the Node code never sees them, nor the DOM types.

type EncodedString = import("../layout.js").EncodedString;
type EncodedMark = import("../layout.js").EncodedMark;
type EncodedRow = import("../layout.js").EncodedRow;
type EncodedRows = import("../layout.js").EncodedRows;
type EncodedDetails = import("../layout.js").EncodedDetails;

/** The glyph of each settlement class (the renderer's `GLYPHS`). */
declare const GLYPHS: Readonly<Record<string, string>>;
/** Panels per details block (the renderer's `PANELS_PER_BLOCK`). */
declare const PANELS_PER_BLOCK: number;

/** Per-kind counts of a row's marks, and how many need or had a resolution. */
interface MarkCounts {
  readonly byKind: Map<string, number>;
  readonly open: number;
  readonly resolved: number;
}

/** What `rowDrawer` (rows.ts) returns over one string table. */
interface RowDrawer {
  str(index: number): string;
  row(encoded: EncodedRow, position: number): string;
  counts(marks: readonly EncodedMark[]): MarkCounts;
  episodeTitle(episode: number): string;
}
