/**
 * The page's inline script. Rows wait in inert templates and are shown one page at a time (so a page
 * of 10 000 invocations lays out 100 rows, not all of them); the settlement and participant
 * checkboxes filter them and recount the legend over every page; a mark's or invocation's details
 * panel is drawn from the JSON data block, as text, when it is clicked or linked (#id).
 */
export const TIMELINE_SCRIPT = `
(() => {
  const PAGE = 100;
  const body = document.getElementById("details-body");
  const empty = body.innerHTML;
  // Parsed on the first click, not at load: the page is usable before its panels are read.
  let data = null;
  let S = [];
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const panel = (detailId) => {
    if (!data) {
      data = JSON.parse(document.getElementById("timeline-details").textContent);
      S = data.s;
    }
    const d = data.d[Number(detailId.slice("detail-".length)) - 1];
    if (!d) return null;
    const [kind, id, title, pillClass, pillText, notice, needs, sections] = d;
    const article = el("article", "detail");
    article.setAttribute(kind === 0 ? "data-detail-tool-action" : "data-detail-invocation", S[id]);
    if (needs) article.setAttribute("data-needs-resolution", "");
    const head = el("header", "detail-head");
    head.append(el("h3", "", S[title]), el("span", "pill " + S[pillClass], S[pillText]));
    const idLine = el("p", "detail-id");
    const link = el("a", "permalink", "link");
    link.setAttribute("href", "#" + encodeURIComponent(S[id]));
    idLine.append(el("code", "", S[id]), " ", link);
    article.append(head, idLine);
    if (S[notice]) {
      // The notice is HTML the page generator escaped (resolve commands); every other value is set as text.
      const t = document.createElement("template");
      t.innerHTML = S[notice];
      article.append(t.content);
    }
    for (const [sectionTitle, emptyLine, rows] of sections) {
      const section = el("section", "detail-section");
      section.append(el("h4", "", S[sectionTitle]));
      if (rows.length === 0 && emptyLine >= 0) section.append(el("p", "muted", S[emptyLine]));
      else {
        const dl = el("dl", "fields");
        for (const [field, value] of rows) {
          const dd = el("dd");
          dd.dataset.field = S[field];
          const code = el("code");
          (typeof value === "number" ? [value] : value).forEach((v, i) => {
            if (i > 0) code.append(el("br"));
            code.append(S[v]);
          });
          dd.append(code);
          dl.append(el("dt", "", S[field]), dd);
        }
        section.append(dl);
      }
      article.append(section);
    }
    return article;
  };

  let selected = null;
  const select = (trigger) => {
    if (selected) selected.setAttribute("aria-pressed", "false");
    selected = trigger;
    if (!trigger) { body.innerHTML = empty; return; }
    const shown = panel(trigger.dataset.detail || "");
    if (!shown) return;
    body.replaceChildren(shown);
    trigger.setAttribute("aria-pressed", "true");
  };

  const countsOf = (text) => {
    const counts = {};
    for (const word of (text || "").split(" ")) {
      const at = word.lastIndexOf(":");
      if (at > 0) counts[decodeURIComponent(word.slice(0, at))] = Number(word.slice(at + 1));
    }
    return counts;
  };
  // Each row's first tag carries its counts and episode; data in it is escaped, so its first ">" ends it.
  const ROW = '<li class="invocation" ';
  const attribute = (tag, name) => {
    const at = tag.indexOf(" " + name + '="');
    if (at < 0) return "";
    const from = at + name.length + 3;
    return tag.slice(from, tag.indexOf('"', from));
  };
  const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
  const sections = [...document.querySelectorAll("section.participant")].map((section) => {
    const block = section.querySelector("script.rows");
    const rows = block
      ? block.textContent.split(ROW).slice(1).map((rest) => {
          const html = ROW + rest;
          const tag = html.slice(0, html.indexOf(">"));
          return {
            html,
            tag,
            counts: countsOf(attribute(tag, "data-counts").replace(/&#39;/g, "'")),
            open: Number(attribute(tag, "data-open-count") || 0),
            resolved: Number(attribute(tag, "data-resolved-count") || 0),
            episode: attribute(tag, "data-episode"),
          };
        })
      : [];
    return { section, list: section.querySelector("ol.invocations"), rows, shown: rows, page: 0 };
  });
  const settlementBoxes = [...document.querySelectorAll("[data-filter-settlement]")];
  const participantBoxes = [...document.querySelectorAll("[data-filter-participant]")];
  const legendItems = [...document.querySelectorAll("[data-legend-settlement]")];
  const shownLine = document.querySelector("[data-shown]");
  let on = new Set();

  const render = (s) => {
    if (!s.list) return;
    const pages = Math.max(1, Math.ceil(s.shown.length / PAGE));
    s.page = Math.max(0, Math.min(s.page, pages - 1));
    const from = s.page * PAGE;
    const slice = s.shown.slice(from, from + PAGE);
    const items = [];
    let episode = null;
    for (const r of slice) {
      // The episode is still escaped, as it was in the row's tag.
      if (r.episode !== episode) {
        episode = r.episode;
        items.push('<li class="episode-title">Episode <code>' + episode + "</code></li>");
      }
      items.push(r.html);
    }
    s.list.innerHTML = items.join("");
    for (const mark of s.list.querySelectorAll(".mark")) mark.classList.toggle("dim", !on.has(mark.dataset.settlement));
    const status = s.section.querySelector(".page-status");
    if (status) status.textContent = slice.length > 0
      ? "invocations " + (from + 1) + "–" + (from + slice.length) + " of " + s.shown.length + " · page " + (s.page + 1) + " of " + pages
      : "no invocation matches the filters";
    s.section.dataset.pageNumber = String(s.page + 1);
    s.section.dataset.pageCount = String(pages);
    const prev = s.section.querySelector('[data-pager="prev"]');
    const next = s.section.querySelector('[data-pager="next"]');
    if (prev) prev.disabled = s.page === 0;
    if (next) next.disabled = s.page >= pages - 1;
  };

  const apply = () => {
    on = new Set(settlementBoxes.filter((b) => b.checked).map((b) => b.dataset.filterSettlement));
    const allOn = on.size === settlementBoxes.length;
    const people = new Set(participantBoxes.filter((b) => b.checked).map((b) => b.dataset.filterParticipant));
    const totals = {};
    let open = 0, resolved = 0, shown = 0, total = 0;
    for (const s of sections) {
      total += s.rows.length;
      const visible = participantBoxes.length === 0 || people.has(s.section.dataset.participant);
      s.section.hidden = !visible;
      if (!visible) { s.shown = []; continue; }
      for (const r of s.rows) {
        for (const k in r.counts) totals[k] = (totals[k] || 0) + r.counts[k];
        open += r.open;
        resolved += r.resolved;
      }
      s.shown = allOn ? s.rows : s.rows.filter((r) => {
        const keys = Object.keys(r.counts);
        return keys.length === 0 ? false : keys.some((k) => on.has(k));
      });
      shown += s.shown.length;
      render(s);
    }
    // The legend counts the marks of the participants shown, over every page, as the marks are drawn.
    for (const li of legendItems) {
      const n = totals[li.dataset.legendSettlement] || 0;
      li.dataset.count = String(n);
      li.querySelector(".count").textContent = String(n);
    }
    for (const [note, n] of [["needs-resolution", open], ["resolved", resolved]]) {
      const li = document.querySelector('[data-legend-note="' + note + '"]');
      if (li) { li.dataset.count = String(n); li.querySelector(".count").textContent = String(n); }
    }
    if (shownLine) {
      shownLine.dataset.shown = String(shown);
      shownLine.textContent = "showing " + shown + " of " + total + " invocations";
    }
  };

  document.addEventListener("change", (event) => {
    if (event.target instanceof HTMLInputElement && (event.target.dataset.filterSettlement !== undefined || event.target.dataset.filterParticipant !== undefined)) apply();
  });
  document.addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const pager = target ? target.closest("[data-pager]") : null;
    if (pager) {
      const s = sections.find((x) => x.section.contains(pager));
      if (s) { s.page += pager.dataset.pager === "next" ? 1 : -1; render(s); }
      return;
    }
    const trigger = target ? target.closest("[data-detail]") : null;
    if (trigger) select(trigger);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") select(null);
  });
  // A link to one action or invocation (#id) shows its page, opens its details and scrolls it into view.
  const follow = () => {
    let id = "";
    try { id = decodeURIComponent(location.hash.slice(1)); } catch { return; }
    if (!id) return;
    if (!document.getElementById(id)) {
      // The row's markup holds the id as the page generator escaped it.
      const escaped = ' id="' + id.replace(/[&<>"']/g, (c) => ENTITIES[c]) + '"';
      const named = (x) => x.html.includes(escaped);
      for (const s of sections) {
        const r = s.rows.find(named);
        if (!r) continue;
        if (!s.shown.includes(r)) {
          // The link names it, so show it even when a filter hid it.
          for (const box of [...settlementBoxes, ...participantBoxes]) box.checked = true;
          apply();
        }
        s.page = Math.floor(s.shown.indexOf(r) / PAGE);
        render(s);
        break;
      }
    }
    const target = document.getElementById(id);
    if (!target) return;
    const trigger = target.matches("[data-detail]") ? target : target.querySelector("[data-detail]");
    if (!trigger) return;
    select(trigger);
    trigger.scrollIntoView({ block: "center" });
  };
  apply();
  window.addEventListener("hashchange", follow);
  follow();
  document.documentElement.dataset.readyMs = String(Math.round(performance.now()));
})();
`;
