import { createHash } from "node:crypto";
import { CONSOLE_SCRIPT } from "./script.js";

/** The console's stylesheet: system fonts, nothing loaded. */
const CONSOLE_CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; font-size: 14px; }
body { margin: 0 auto; max-width: 1400px; padding: 0 16px 32px; }
header { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; border-bottom: 1px solid #8884; padding: 8px 0; }
h1 { font-size: 1.3rem; margin: 0; }
h2 { font-size: 1.1rem; margin: 20px 0 8px; }
code { font-size: 0.92em; word-break: break-all; }
.muted { color: #777; }
.chain.verified { color: #1a7f37; }
.chain.broken { color: #c62828; font-weight: 600; }
.chain.checking { color: #777; }
.chain.unreadable { color: #b26a00; font-weight: 600; }
[data-live="open"] { color: #1a7f37; }
[data-live="closed"] { color: #c62828; }
#waits { border: 2px solid #d97706; border-radius: 6px; padding: 4px 12px 12px; margin-top: 12px; }
#waits-list { list-style: none; padding: 0; margin: 0; }
.wait { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; padding: 6px 0; border-top: 1px solid #8883; }
.need { font-weight: 600; }
.actions { display: inline-flex; gap: 6px; }
button { font: inherit; padding: 2px 10px; cursor: pointer; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-top: 1px solid #8883; vertical-align: top; }
td.num { text-align: right; }
.message { min-height: 1.4em; }
.message.failed { color: #c62828; }
details.timeline { margin: 8px 0; }
details.timeline iframe { width: 100%; height: 70vh; border: 1px solid #8886; }
`;

function sha256(text: string): string {
  return `'sha256-${createHash("sha256").update(text).digest("base64")}'`;
}

/**
 * The console page's Content-Security-Policy: its one inline script and stylesheet by hash (no
 * 'unsafe-inline'), requests to its own origin only (the state stream, the actions), frames from its
 * own origin only (the timelines), never framed itself, no forms, no base URL.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  `script-src ${sha256(CONSOLE_SCRIPT)}`,
  `style-src ${sha256(CONSOLE_CSS)}`,
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The console page: an empty frame of sections the script fills from the state stream. It carries the
 * token in a meta element for the script's requests; it holds no store data itself.
 */
export function consolePage(token: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="raes-token" content="${escapeAttribute(token)}">
<title>RAES operator console</title>
<style>${CONSOLE_CSS}</style>
</head>
<body data-updates="0">
<header>
<h1>RAES operator console</h1>
<span>store <code id="store"></code></span>
<span>decisions recorded as <code id="operator"></code></span>
<span id="live" data-live="connecting">connecting…</span>
<span id="decisions"></span>
<span id="evidence"></span>
</header>
<section id="waits" aria-labelledby="waits-title">
<h2 id="waits-title">Needs an operator (<span id="waits-count">0</span>)</h2>
<p><label>Note for the next decision <input id="note" maxlength="4096" size="60"></label></p>
<p class="muted" id="waits-empty">Nothing waits for an operator.</p>
<ul id="waits-list"></ul>
<p class="muted" id="waits-more" hidden>More wait than are shown: raes operations --needs-operator lists them all.</p>
<p id="message" class="message" role="status" aria-live="polite"></p>
</section>
<section id="participants" aria-labelledby="participants-title">
<h2 id="participants-title">Participants</h2>
<table><thead><tr><th>participant</th><th>schedulers</th><th>execution</th><th>open invocations</th><th>events</th><th>history chain</th><th></th></tr></thead>
<tbody id="participants-body"></tbody></table>
<p class="muted" id="participants-empty">No participant yet.</p>
<p class="muted" id="participants-more" hidden>More participants exist than are shown.</p>
</section>
<section id="operations" aria-labelledby="operations-title">
<h2 id="operations-title">Newest operations</h2>
<table><thead><tr><th>id</th><th>kind</th><th>state</th><th>decision</th><th>updated</th></tr></thead>
<tbody id="operations-body"></tbody></table>
<p class="muted" id="operations-empty">No operation yet.</p>
<p class="muted" id="operations-more" hidden>Older operations: raes operations lists them.</p>
</section>
<section id="timelines" aria-labelledby="timelines-title">
<h2 id="timelines-title">Timelines</h2>
<div id="timelines-list"></div>
</section>
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>
`;
}
