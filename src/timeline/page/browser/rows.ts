/**
 * The page's row drawer: over the rows block's string table it gives `str(i)` (the string at an
 * index) and `row(encoded, position)` (one invocation's markup, every value escaped). It runs in the
 * page for the rows of the current page only, and in tests (test/fixtures/history/html.ts) to read
 * the markup the page draws. Row and mark layouts are `EncodedRow` and `EncodedMark`
 * (../layout.ts); durations read as `formatDuration` does.
 */
// biome-ignore lint/correctness/noUnusedVariables: a classic script's global, called by script.ts and the tests
function rowDrawer(S: readonly EncodedString[]): RowDrawer {
  const done: string[] = [];
  // Entries name only earlier ones, nested at most a few deep (render/strings.ts).
  const str = (index: number): string => {
    const known = done[index];
    if (known !== undefined) return known;
    const entry = S[index];
    const part = (at: number) => (at < index ? str(at) : "");
    const text = entry === undefined ? "" : typeof entry === "string" ? entry : part(entry[0]) + entry[1];
    done[index] = text;
    return text;
  };
  const ENTITIES: Readonly<Record<string, string>> = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "'": "&#39;",
  };
  const esc = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
  const s = (index: number) => esc(str(index));
  const duration = (ms: number): string => {
    if (ms < 1) return `${Math.round(ms * 1000)} µs`;
    if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : String(Math.round(ms))} ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 2 : 1)} s`;
    return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  };
  const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(3)}%`;
  const timesLabel = (a: number | null, d: number | null, t: number | null): string => {
    const parts: string[] = [];
    if (a !== null) parts.push(`admitted +${duration(a)}`);
    if (d !== null) parts.push(`dispatched +${duration(d)}`);
    if (t !== null) parts.push(`settled +${duration(t)}`);
    if (a !== null && t !== null) parts.push(`took ${duration(t - a)}`);
    return parts.join(" · ");
  };
  const mark = (m: EncodedMark): string => {
    const [id, settlement, kind, resolution, ordinal, call, tool, detail] = m;
    const ring = resolution === 1 ? " needs-resolution" : resolution === 2 ? " resolved" : "";
    const label = esc(
      `tool action #${ordinal} ${str(call)}${tool >= 0 ? ` (${str(tool)})` : ""}: ${str(settlement)}`,
    );
    return (
      `<li class="mark-slot"><button type="button" id="${s(id)}" class="mark s-${s(kind)}${ring}"` +
      ` data-tool-action="${s(id)}" data-settlement="${s(settlement)}"` +
      ` data-admission-ordinal="${esc(ordinal)}" data-detail="detail-${detail}"` +
      ` aria-pressed="false" aria-label="${label}" title="${label}">` +
      `<span aria-hidden="true">${GLYPHS[str(kind)] || "•"}</span></button>` +
      `<span class="ordinal" aria-hidden="true">${esc(ordinal)}</span></li>`
    );
  };
  const lane = (m: EncodedMark, whole: number): string => {
    const [id, settlement, , , ordinal, call, tool, , a, d, t] = m;
    const admitted = a === null ? 0 : a;
    const settled = t === null ? admitted : t;
    // The pale part of a bar is the wait between admission and dispatch; the solid part the call itself.
    const wait = d === null ? settled - admitted : d - admitted;
    return (
      `<li class="lane" data-lane-for="${s(id)}" data-admit-ms="${admitted}"` +
      (d === null ? "" : ` data-dispatch-ms="${d}"`) +
      ` data-settle-ms="${settled}"` +
      ` title="${esc(timesLabel(a, d, t))}">` +
      `<span class="lane-name">#${esc(ordinal)} ${s(tool >= 0 ? tool : call)}</span>` +
      `<span class="lane-track"><span class="bar s-${s(settlement)}" style="left:${pct(admitted, whole)};width:${pct(settled - admitted, whole)}">` +
      `<span class="wait" style="width:${settled > admitted ? pct(wait, settled - admitted) : "0%"}"></span></span></span></li>`
    );
  };
  const counts = (marks: readonly EncodedMark[]): MarkCounts => {
    const byKind = new Map<string, number>();
    let open = 0;
    let resolved = 0;
    for (const m of marks) {
      const name = str(m[1]);
      byKind.set(name, (byKind.get(name) || 0) + 1);
      if (m[3] === 1) open += 1;
      if (m[3] === 2) resolved += 1;
    }
    return { byKind, open, resolved };
  };
  const row = (r: EncodedRow, position: number): string => {
    const [id, episode, key, cls, label, clock, span, detail, refusals, activity, marks] = r;
    const c = counts(marks);
    const words = [...c.byKind].map(([k, n]) => `${encodeURIComponent(k)}:${n}`).join(" ");
    const n = marks.length;
    const total = refusals.reduce((sum, x) => sum + x[1], 0);
    const codes = refusals
      .map((x) => `${str(x[0])} ×${x[1]}${str(x[2]) ? ` (${str(x[2])})` : ""}`)
      .join(", ");
    // When each was refused (the first ones an invocation keeps), for the badge's tooltip.
    const times = refusals
      .filter((x) => str(x[3]) !== "")
      .map((x) => `${str(x[0])} at ${str(x[3])}`)
      .join("; ");
    const axis =
      span === null || n === 0
        ? ""
        : `<ol class="axis" aria-label="tool actions in time">${marks.map((m) => lane(m, Math.max(span, 0.001))).join("")}` +
          `<li class="ticks" aria-hidden="true"><span>0</span><span>${esc(duration(span))}</span></li></ol>`;
    return (
      `<li class="invocation" id="${s(id)}" data-invocation="${s(id)}" data-episode="${s(episode)}"` +
      ` data-invocation-status="${s(key)}"${span === null ? "" : ` data-duration-ms="${span}"`}` +
      ` data-counts="${esc(words)}" data-open-count="${c.open}" data-resolved-count="${c.resolved}"` +
      (activity
        ? ` data-candidate="${s(activity[0])}" data-disposition="${s(activity[1])}" data-predecessor="${s(activity[2])}"`
        : "") +
      ">" +
      `<button type="button" class="invocation-label" data-detail="detail-${detail}" aria-pressed="false" title="${s(id)}">` +
      `<span class="invocation-name">Invocation ${position}</span>` +
      `<span class="invocation-meta">${s(clock)}${span === null ? "" : esc(` · ${duration(span)}`)} · ${n} tool action${n === 1 ? "" : "s"}</span>` +
      (activity ? `<span class="invocation-meta activity">${s(activity[3])}</span>` : "") +
      "</button>" +
      `<div class="track">${n > 0 ? `<ol class="marks">${marks.map(mark).join("")}</ol>` : '<span class="muted">no tool actions</span>'}${axis}</div>` +
      `<div class="badges"><span class="status st-${s(cls)}">${s(label)}</span>` +
      (total === 0
        ? ""
        : `<span class="refused" data-refusals="${total}" title="${esc(times || codes)}">${total} refused: ${esc(codes)}</span>`) +
      "</div></li>"
    );
  };
  const episodeTitle = (episode: number) =>
    `<li class="episode-title">Episode <code>${s(episode)}</code></li>`;
  return { str, row, counts, episodeTitle };
}
