import { createHash } from "node:crypto";
import { PAGE_CSS, ROWS_JS, SCRIPT_JS } from "./compiled.js";
import { GLYPHS, PANELS_PER_BLOCK } from "./layout.js";

export {
  type EncodedDetail,
  type EncodedDetails,
  type EncodedMark,
  type EncodedRow,
  type EncodedRows,
  type EncodedSection,
  type EncodedString,
  GLYPHS,
  PANELS_PER_BLOCK,
} from "./layout.js";

/** The constants the page's scripts read as globals (browser/globals.d.ts), written in front of them. */
const CONSTANTS = `const GLYPHS = ${JSON.stringify(GLYPHS)};\nconst PANELS_PER_BLOCK = ${PANELS_PER_BLOCK};\n`;

/**
 * The page's inline script: the row drawer and the page script (browser/), in one function scope,
 * so they leave no globals in the page.
 */
export const TIMELINE_SCRIPT = `(() => {\n${CONSTANTS}${ROWS_JS}${SCRIPT_JS}})();\n`;

/**
 * The page's row drawer (browser/rows.ts), as a JavaScript expression whose value is
 * `rowDrawer(table)`: tests evaluate it to read the markup the page draws.
 */
export const ROW_RENDERER = `(() => {\n${CONSTANTS}${ROWS_JS}return rowDrawer;\n})()`;

/** The page's inline stylesheet (browser/style.css): system fonts only, so the page never reaches the network. */
export const TIMELINE_CSS = PAGE_CSS;

/**
 * The Content-Security-Policy of the page: nothing may load; the inline stylesheet applies and only
 * the page's own script runs, named by its SHA-256 hash (a hash, not a nonce: the page is a file, so
 * a nonce in it would never change). Any other inline script, injected or not, is refused.
 */
export const TIMELINE_CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${createHash("sha256").update(TIMELINE_SCRIPT).digest("base64")}'`;
