/**
 * The page's script. The rows are data (one JSON block, strings in a shared table) drawn as markup
 * one page at a time (so a page of 10 000 invocations draws 100 rows per participant, and the
 * browser lays out only those in view); the settlement and participant checkboxes and the search
 * filter that data and recount the legend over every page without touching the DOM; a mark's or
 * invocation's details panel is drawn, as text, from its details block (parsed when one of its panels
 * is first shown) when it is clicked or linked (#id).
 */
(() => {
  const PAGE = 100;
  const body = document.getElementById("details-body") as HTMLElement;
  const empty = body.innerHTML;
  const rowsBlock = document.getElementById("timeline-rows");
  const table: EncodedRows = rowsBlock ? JSON.parse(rowsBlock.textContent ?? "") : { s: [], p: [] };
  const drawer = rowDrawer;
  const R = drawer(table.s);
  const str = R.str;
  // A details block is parsed when one of its panels is first shown, not at load.
  const PANELS = PANELS_PER_BLOCK;
  const blocks: { d: EncodedDetails["d"]; text: (index: number) => string }[] = [];
  const el = (tag: string, cls?: string, content?: string) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (content !== undefined) e.textContent = content;
    return e;
  };
  const panel = (detailId: string): HTMLElement | null => {
    const n = Number(detailId.slice("detail-".length)) - 1;
    const k = Math.floor(n / PANELS);
    if (!blocks[k]) {
      const block = document.getElementById(`timeline-details-${k}`);
      if (!block) return null;
      const data: EncodedDetails = JSON.parse(block.textContent ?? "");
      blocks[k] = { d: data.d, text: drawer(data.s).str };
    }
    const { text, d: panels } = blocks[k];
    const d = panels[n % PANELS];
    if (!d) return null;
    const [kind, id, title, pillClass, pillText, notice, needs, sections] = d;
    const article = el("article", "detail");
    article.setAttribute(kind === 0 ? "data-detail-tool-action" : "data-detail-invocation", text(id));
    if (needs) article.setAttribute("data-needs-resolution", "");
    const head = el("header", "detail-head");
    head.append(el("h3", "", text(title)), el("span", `pill ${text(pillClass)}`, text(pillText)));
    const idLine = el("p", "detail-id");
    const link = el("a", "permalink", "link");
    link.setAttribute("href", `#${encodeURIComponent(text(id))}`);
    idLine.append(el("code", "", text(id)), " ", link);
    article.append(head, idLine);
    if (text(notice)) {
      // The notice is HTML the page generator escaped (resolve commands); every other value is set as text.
      const t = document.createElement("template");
      t.innerHTML = text(notice);
      article.append(t.content);
    }
    for (const [sectionTitle, emptyLine, rows] of sections) {
      const section = el("section", "detail-section");
      section.append(el("h4", "", text(sectionTitle)));
      if (rows.length === 0 && emptyLine >= 0) section.append(el("p", "muted", text(emptyLine)));
      else {
        const dl = el("dl", "fields");
        for (let i = 0; i + 1 < rows.length; i += 2) {
          const field = rows[i] as number;
          const value = rows[i + 1] as number | number[];
          const dd = el("dd");
          dd.dataset.field = text(field);
          const code = el("code");
          // [-1, parts…] is one line whose parts are joined by " · "; other lists are lines.
          if (typeof value === "number") code.append(text(value));
          else if (value[0] === -1) code.append(value.slice(1).map(text).join(" · "));
          else
            value.forEach((v, i) => {
              if (i > 0) code.append(el("br"));
              code.append(text(v));
            });
          dd.append(code);
          dl.append(el("dt", "", text(field)), dd);
        }
        section.append(dl);
      }
      article.append(section);
    }
    return article;
  };

  let selected: Element | null = null;
  const select = (trigger: HTMLElement | null) => {
    if (selected) selected.setAttribute("aria-pressed", "false");
    selected = trigger;
    if (!trigger) {
      body.innerHTML = empty;
      return;
    }
    const shown = panel(trigger.dataset.detail || "");
    if (!shown) return;
    body.replaceChildren(shown);
    trigger.setAttribute("aria-pressed", "true");
  };

  interface Row {
    readonly data: EncodedRow;
    readonly position: number;
    readonly counts: Map<string, number>;
    readonly open: number;
    readonly resolved: number;
    readonly episode: number;
  }
  interface Section {
    readonly section: HTMLElement;
    readonly list: HTMLElement | null;
    readonly rows: Row[];
    shown: Row[];
    page: number;
    readonly totals: Map<string, number>;
    /** Invocations per status (the row badges' words). */
    readonly statuses: Map<string, number>;
    readonly open: number;
    readonly resolved: number;
  }
  const sections = [...document.querySelectorAll<HTMLElement>("section.participant")].map(
    (section, k): Section => {
      const rows = (table.p[k] || []).map((data, index): Row => {
        const c = R.counts(data[10]);
        return {
          data,
          position: index + 1,
          counts: c.byKind,
          open: c.open,
          resolved: c.resolved,
          episode: data[1],
        };
      });
      // What needs an operator comes first; otherwise commit order (the sort is stable, and each row
      // keeps its position in commit order as its name).
      rows.sort((a, b) => Number(b.open > 0) - Number(a.open > 0));
      // What the legend counts for a shown section does not depend on the settlement filter: summed once.
      const totals = new Map<string, number>();
      const statuses = new Map<string, number>();
      let open = 0;
      let resolved = 0;
      for (const r of rows) {
        for (const [k, n] of r.counts) totals.set(k, (totals.get(k) || 0) + n);
        const status = str(r.data[2]);
        statuses.set(status, (statuses.get(status) || 0) + 1);
        open += r.open;
        resolved += r.resolved;
      }
      return {
        section,
        list: section.querySelector<HTMLElement>("ol.invocations"),
        rows,
        shown: rows,
        page: 0,
        totals,
        statuses,
        open,
        resolved,
      };
    },
  );
  const settlementBoxes = [...document.querySelectorAll<HTMLInputElement>("[data-filter-settlement]")];
  const participantBoxes = [...document.querySelectorAll<HTMLInputElement>("[data-filter-participant]")];
  const legendItems = [...document.querySelectorAll<HTMLElement>("[data-legend-settlement]")];
  const statusItems = [...document.querySelectorAll<HTMLElement>("[data-legend-status]")];
  const shownLine = document.querySelector<HTMLElement>("[data-shown]");
  const searchBox = document.querySelector<HTMLInputElement>("[data-search]");
  // A search matches strings of the table, each once (rows share ids' prefixes, tools and
  // settlements), then rows by index: its ids, episode, status, and each action's call id, tool and settlement.
  let lower: string[] | null = null;
  const matcher = (query: string) => {
    if (!lower) lower = table.s.map((_, i) => str(i).toLowerCase());
    const hit = new Uint8Array(lower.length);
    lower.forEach((text, i) => {
      if (text.includes(query)) hit[i] = 1;
    });
    return (r: Row) => {
      const [id, episode, , , label, , , , , , marks] = r.data;
      if (hit[id] || hit[episode] || hit[label]) return true;
      for (const m of marks) if (hit[m[0]] || hit[m[1]] || hit[m[5]] || (m[6] >= 0 && hit[m[6]])) return true;
      return false;
    };
  };
  let on = new Set<string | undefined>();

  const render = (s: Section) => {
    if (!s.list) return;
    const pages = Math.max(1, Math.ceil(s.shown.length / PAGE));
    s.page = Math.max(0, Math.min(s.page, pages - 1));
    const from = s.page * PAGE;
    const slice = s.shown.slice(from, from + PAGE);
    const items: string[] = [];
    let episode: number | null = null;
    for (const r of slice) {
      if (r.episode !== episode) {
        episode = r.episode;
        items.push(R.episodeTitle(episode));
      }
      items.push(R.row(r.data, r.position));
    }
    s.list.innerHTML = items.join("");
    for (const mark of s.list.querySelectorAll<HTMLElement>(".mark"))
      mark.classList.toggle("dim", !on.has(mark.dataset.settlement));
    const status = s.section.querySelector(".page-status");
    if (status)
      status.textContent =
        slice.length > 0
          ? `invocations ${from + 1}–${from + slice.length} of ${s.shown.length} · page ${s.page + 1} of ${pages}`
          : "no invocation matches the filters";
    s.section.dataset.pageNumber = String(s.page + 1);
    s.section.dataset.pageCount = String(pages);
    const prev = s.section.querySelector<HTMLButtonElement>('[data-pager="prev"]');
    const next = s.section.querySelector<HTMLButtonElement>('[data-pager="next"]');
    if (prev) prev.disabled = s.page === 0;
    if (next) next.disabled = s.page >= pages - 1;
  };

  const apply = () => {
    on = new Set(settlementBoxes.filter((b) => b.checked).map((b) => b.dataset.filterSettlement));
    const allOn = on.size === settlementBoxes.length;
    const people = new Set(participantBoxes.filter((b) => b.checked).map((b) => b.dataset.filterParticipant));
    const query = searchBox ? searchBox.value.trim().toLowerCase() : "";
    const matches = query === "" ? null : matcher(query);
    const totals: Record<string, number> = {};
    const statuses: Record<string, number> = {};
    let open = 0;
    let resolved = 0;
    let shown = 0;
    let total = 0;
    for (const s of sections) {
      total += s.rows.length;
      const visible = participantBoxes.length === 0 || people.has(s.section.dataset.participant);
      s.section.hidden = !visible;
      // A hidden section's rows leave the DOM too, so a #id link finds them only in the data (and shows them).
      // (Its page is kept for when it is shown again.)
      if (!visible) {
        s.shown = [];
        if (s.list) s.list.replaceChildren();
        continue;
      }
      // A search narrows the rows the legend counts; the settlement filter only dims and hides.
      const found = matches ? s.rows.filter(matches) : s.rows;
      if (query === "") {
        for (const [k, n] of s.totals) totals[k] = (totals[k] || 0) + n;
        for (const [k, n] of s.statuses) statuses[k] = (statuses[k] || 0) + n;
        open += s.open;
        resolved += s.resolved;
      } else
        for (const r of found) {
          for (const [k, n] of r.counts) totals[k] = (totals[k] || 0) + n;
          const status = str(r.data[2]);
          statuses[status] = (statuses[status] || 0) + 1;
          open += r.open;
          resolved += r.resolved;
        }
      s.shown = allOn
        ? found
        : found.filter((r) => {
            for (const k of r.counts.keys()) if (on.has(k)) return true;
            return false;
          });
      shown += s.shown.length;
      render(s);
    }
    // The legend counts the marks of the participants shown, over every page, as the marks are drawn.
    for (const li of legendItems) {
      const n = totals[li.dataset.legendSettlement ?? ""] || 0;
      li.dataset.count = String(n);
      (li.querySelector(".count") as Element).textContent = String(n);
    }
    // Invocations by status, counted over the same rows: what the badges on the rows say.
    for (const li of statusItems) {
      const n = statuses[li.dataset.legendStatus ?? ""] || 0;
      li.dataset.count = String(n);
      (li.querySelector(".count") as Element).textContent = String(n);
    }
    for (const [note, n] of [
      ["needs-resolution", open],
      ["resolved", resolved],
    ] as const) {
      const li = document.querySelector<HTMLElement>(`[data-legend-note="${note}"]`);
      if (li) {
        li.dataset.count = String(n);
        (li.querySelector(".count") as Element).textContent = String(n);
      }
    }
    if (shownLine) {
      shownLine.dataset.shown = String(shown);
      shownLine.textContent = `showing ${shown} of ${total} invocations`;
    }
  };

  if (searchBox) searchBox.addEventListener("input", () => apply());
  document.addEventListener("change", (event) => {
    if (
      event.target instanceof HTMLInputElement &&
      (event.target.dataset.filterSettlement !== undefined ||
        event.target.dataset.filterParticipant !== undefined)
    )
      apply();
  });
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const pager = target ? target.closest<HTMLElement>("[data-pager]") : null;
    if (pager) {
      const s = sections.find((x) => x.section.contains(pager));
      if (s) {
        s.page += pager.dataset.pager === "next" ? 1 : -1;
        render(s);
      }
      return;
    }
    const trigger = target ? target.closest<HTMLElement>("[data-detail]") : null;
    if (trigger) select(trigger);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") select(null);
  });
  // A link to one action or invocation (#id) shows its page, opens its details and scrolls it into view.
  const follow = () => {
    let id = "";
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return;
    }
    if (!id) return;
    if (!document.getElementById(id)) {
      // Found in the data, not the DOM: the row may be on another page, or hidden by a filter.
      const named = (x: Row) => str(x.data[0]) === id || x.data[10].some((m) => str(m[0]) === id);
      for (const s of sections) {
        const r = s.rows.find(named);
        if (!r) continue;
        if (!s.shown.includes(r)) {
          // The link names it, so show it even when a filter or a search hid it.
          for (const box of [...settlementBoxes, ...participantBoxes]) box.checked = true;
          if (searchBox) searchBox.value = "";
          apply();
        }
        s.page = Math.floor(s.shown.indexOf(r) / PAGE);
        render(s);
        break;
      }
    }
    const target = document.getElementById(id);
    if (!target) return;
    const trigger = target.matches("[data-detail]")
      ? target
      : target.querySelector<HTMLElement>("[data-detail]");
    if (!trigger) return;
    select(trigger);
    trigger.scrollIntoView({ block: "center" });
  };
  apply();
  window.addEventListener("hashchange", follow);
  follow();
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
})();
