/** The page's inline stylesheet: system fonts only, so the page never reaches the network. */
export const TIMELINE_CSS = `
:root {
  --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --paper: #ffffff; --ground: #f6f8fa;
  --succeeded: #1a7f37; --failed: #cf222e; --partial_success: #9a6700; --withheld: #6e7781;
  --indeterminate: #8250df; --other: #57606a; --focus: #0969da;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); background: var(--ground); }
code { font-family: var(--mono); font-size: 12.5px; overflow-wrap: anywhere; }
h1, h2, h3, h4 { margin: 0; }
ol, ul { list-style: none; margin: 0; padding: 0; }
.muted { color: var(--muted); margin: 0; }
.page-head { background: var(--paper); border-bottom: 1px solid var(--line); padding: 18px 28px 14px; }
.page-head h1 { font-size: 20px; font-weight: 600; }
.summary { color: var(--muted); margin: 4px 0 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 8px 18px; }
.legend li { display: flex; align-items: center; gap: 6px; }
.legend-note { color: var(--muted); }
.legend-note .swatch { margin-right: 6px; width: 18px; height: 18px; }
.swatch.ring { box-shadow: 0 0 0 2px var(--paper), 0 0 0 4px #d4a72c; }
.swatch.pale { background: #c8b3f5; color: #3e1f7a; }
.legend .count { color: var(--muted); font-variant-numeric: tabular-nums; }
.swatch { width: 20px; height: 20px; border-radius: 50%; display: inline-grid; place-items: center; color: #fff; font-size: 11px; font-weight: 700; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(340px, 430px); gap: 20px; padding: 20px 28px 40px; align-items: start; }
/* minmax(0, …), not 1fr: rows out of view keep their last layout, which must not hold the column wide. */
@media (max-width: 980px) { .layout { grid-template-columns: minmax(0, 1fr); } }
.participant { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; margin-bottom: 20px; }
.participant-head { display: flex; justify-content: space-between; gap: 16px; flex-wrap: wrap; align-items: flex-start; margin-bottom: 12px; }
.participant-head h2 code { font-size: 15px; font-weight: 600; }
.schedulers { display: flex; flex-direction: column; gap: 6px; align-items: flex-end; }
.scheduler { border-radius: 8px; padding: 5px 10px; border: 1px solid; max-width: 420px; text-align: right; }
.scheduler-state { font-weight: 600; display: block; }
.scheduler-why { font-size: 12px; display: block; }
.scheduler.running { color: var(--succeeded); background: #dafbe1; border-color: #aceebb; }
.scheduler.stopped { color: #a40e26; background: #ffebe9; border-color: #ffcecb; }
.scheduler.unknown { color: var(--muted); background: var(--ground); border-color: var(--line); }
.attention { border: 1px solid #d4a72c; background: #fff8c5; border-radius: 8px; padding: 10px 12px; margin-bottom: 12px; }
.attention h3, .resolutions h3 { font-size: 14px; }
.attention p { margin: 2px 0 8px; }
.commands li + li { margin-top: 6px; }
.command-choice { display: block; font-size: 12px; color: var(--muted); margin-top: 6px; }
.command { display: block; width: fit-content; max-width: 100%; overflow-wrap: anywhere; background: #1f2328; color: #f6f8fa; border-radius: 6px; padding: 4px 8px; user-select: all; }
.resolutions { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin-bottom: 12px; }
.resolutions li { margin-top: 4px; }
.episode + .episode { margin-top: 14px; }
.episode-title { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin: 4px 0 6px; }
.episode-title code { text-transform: none; letter-spacing: 0; }
.invocation { display: grid; grid-template-columns: 190px minmax(0, 1fr) minmax(0, max-content); gap: 14px; align-items: start; padding: 8px 0; border-top: 1px solid #eaeef2; }
.episode-title { padding-top: 10px; }
/* Rows out of view are not laid out or painted until scrolled to (a page draws 100 per participant).
   Only their height is stood in for: their width is the list's, so a narrower window never keeps an old one. */
.invocations > .invocation { content-visibility: auto; contain-intrinsic-block-size: auto 96px; }
@media print { .invocations > .invocation { content-visibility: visible; } }
.invocations > .episode-title:first-child { padding-top: 0; }
.invocation-label { all: unset; cursor: pointer; display: flex; flex-direction: column; border-radius: 6px; padding: 2px 6px; margin-left: -6px; }
.invocation-label:hover { background: var(--ground); }
.invocation-name { font-weight: 600; }
.invocation-meta { font-size: 12px; color: var(--muted); font-variant-numeric: tabular-nums; }
.track { min-width: 0; display: flex; flex-direction: column; gap: 6px; }
.track > .muted { font-size: 12px; padding-top: 6px; }
.marks { position: relative; display: flex; flex-wrap: wrap; gap: 4px 12px; }
.mark-slot { display: flex; flex-direction: column; align-items: center; width: 32px; }
.ordinal { margin-top: 3px; font-size: 11px; color: var(--muted); font-variant-numeric: tabular-nums; }
.mark { width: 30px; height: 30px; border-radius: 50%; border: 2px solid transparent; color: #fff; font-size: 14px; font-weight: 700; cursor: pointer; display: grid; place-items: center; padding: 0; font-family: inherit; box-shadow: 0 0 0 3px var(--paper); }
.mark:hover { filter: brightness(1.12); }
.s-succeeded { background: var(--succeeded); }
.s-failed { background: var(--failed); }
.s-partial_success { background: var(--partial_success); }
.s-withheld { background: var(--paper); color: var(--withheld); border: 2px dashed var(--withheld); }
.s-indeterminate { background: var(--indeterminate); }
.s-other { background: var(--other); }
.s-resolved { background: #eee6ff; color: #512a97; }
.mark.needs-resolution { box-shadow: 0 0 0 3px var(--paper), 0 0 0 5px #d4a72c; }
.mark.resolved { background: #c8b3f5; color: #3e1f7a; }
.mark[aria-pressed="true"], .invocation-label[aria-pressed="true"] { outline: 3px solid var(--focus); outline-offset: 2px; }
.mark:focus-visible, .invocation-label:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.badges { display: flex; flex-direction: column; align-items: flex-end; gap: 4px; min-width: 0; }
.refused { font-size: 12px; color: #a40e26; background: #ffebe9; border-radius: 999px; padding: 1px 8px; max-width: 100%; overflow-wrap: anywhere; }
.axis { display: grid; gap: 2px; font-size: 11px; color: var(--muted); }
.lane { display: grid; grid-template-columns: minmax(0, 9em) minmax(0, 1fr); gap: 6px; align-items: center; }
.lane-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: var(--mono); }
.lane-track { position: relative; height: 8px; background: #eef1f4; border-radius: 4px; }
.bar { position: absolute; top: 0; bottom: 0; min-width: 3px; border-radius: 4px; overflow: hidden; }
.bar.s-withheld { border-width: 1px; }
.wait { display: block; height: 100%; background: rgba(255, 255, 255, .55); }
.ticks { display: flex; justify-content: space-between; margin-left: calc(min(9em, 40%) + 6px); font-variant-numeric: tabular-nums; }
.mark.dim { opacity: .25; }
.filters { border: 0; padding: 0; margin: 10px 0 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
.filters legend { float: left; margin-right: 8px; color: var(--muted); }
.filters label, .legend label { display: flex; align-items: center; gap: 6px; cursor: pointer; }
.refusal-summary { margin: 8px 0 0; display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 13px; }
.refusal-summary ul { display: flex; flex-wrap: wrap; gap: 4px 12px; }
.search { margin: 10px 0 0; }
.search label { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 8px; color: var(--muted); }
.search input { font: inherit; color: var(--ink); padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; width: min(100%, 360px); }
.shown { margin: 8px 0 0; color: var(--muted); font-size: 13px; }
.pager { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; margin-top: 10px; padding-top: 8px; border-top: 1px solid #eaeef2; }
.pager button { font: inherit; padding: 3px 10px; border: 1px solid var(--line); border-radius: 6px; background: var(--paper); cursor: pointer; }
.pager button:disabled { opacity: .45; cursor: default; }
.page-status { color: var(--muted); font-size: 12px; }
.permalink { font-size: 12px; color: var(--focus); }
/* Narrow screens: one column per row, so badges, marks and the axis each get the full width. */
@media (max-width: 640px) {
  .page-head { padding: 14px 12px 10px; }
  .layout { padding: 12px 8px 28px; gap: 12px; }
  .participant { padding: 12px 10px; }
  .participant-head { flex-direction: column; }
  .schedulers { align-items: stretch; }
  .scheduler { max-width: none; text-align: left; }
  .invocation { grid-template-columns: minmax(0, 1fr); gap: 6px; }
  .badges { flex-direction: row; flex-wrap: wrap; align-items: flex-start; }
  .details { position: static; max-height: none; }
}
.status, .pill { display: inline-block; border-radius: 999px; padding: 2px 10px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pill.s-succeeded, .pill.s-failed, .pill.s-partial_success, .pill.s-indeterminate, .pill.s-other { color: #fff; }
.pill.s-withheld { border-width: 1px; }
.st-succeeded { background: #dafbe1; color: var(--succeeded); }
.st-failed { background: #ffebe9; color: #a40e26; }
.st-partial_success { background: #fff8c5; color: var(--partial_success); }
.st-other { background: var(--ground); color: var(--muted); }
.details { position: sticky; top: 16px; background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 16px 18px; max-height: calc(100vh - 32px); overflow: auto; }
.details > h2 { font-size: 13px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .04em; margin-bottom: 10px; }
.detail-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; }
.detail-head h3 { font-size: 16px; }
.detail-id { margin: 6px 0 10px; }
.detail-section { margin-top: 14px; }
.detail-section h4 { font-size: 12px; color: var(--muted); font-weight: 600; border-bottom: 1px solid #eaeef2; padding-bottom: 3px; margin-bottom: 6px; }
.fields { margin: 0; }
.fields dt { color: var(--muted); font-size: 12px; }
.fields dd { margin: 0 0 6px; }
.notice { border-radius: 8px; padding: 8px 10px; margin: 8px 0 0; }
.notice p { margin: 0 0 6px; }
.notice.resolved { background: #eee6ff; color: #3e1f7a; }
.notice.unresolved { background: #fff8c5; border: 1px solid #d4a72c; }
.notice.failed { background: #ffebe9; color: #a40e26; }
`;
