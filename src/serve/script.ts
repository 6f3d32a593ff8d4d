/**
 * The console page's own script, as the page inlines it (the page's CSP names it by hash). It builds
 * every row with DOM calls and `textContent`, never markup from data, so nothing read from the store
 * can become markup or script. It reads its token from the page's `raes-token` meta element, follows
 * the state stream, draws the lists, keeps each open participant's timeline frame current, and posts
 * a button's action with the token.
 */
export const CONSOLE_SCRIPT = `(() => {
  "use strict";
  const token = document.querySelector('meta[name="raes-token"]').getAttribute("content");
  const $ = (id) => document.getElementById(id);
  let state;
  const frames = new Map();

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children || []) if (child) node.append(child);
    return node;
  }

  function say(text, failed) {
    const message = $("message");
    message.textContent = text;
    message.className = failed ? "message failed" : "message";
  }

  function chainText(chain) {
    if (chain.state === "verified") return "verifies (" + chain.count + ")";
    if (chain.state === "broken") return "broken: " + chain.failure;
    if (chain.state === "unreadable") return "could not be checked: " + chain.failure;
    return "checking…";
  }

  function chainBadge(chain, label) {
    return el("span", {
      class: "chain " + chain.state,
      "data-chain": chain.state,
      "data-chain-at": chain.at ? chain.at.participant + "#" + chain.at.sequence : undefined,
      text: (label ? label + " " : "") + chainText(chain),
    });
  }

  function buttons(actions, subject, generation) {
    return el(
      "span",
      { class: "actions" },
      actions.map((name) =>
        el("button", {
          type: "button",
          "data-action": name,
          "data-subject": subject,
          "data-generation": name.startsWith("execution-") && generation !== undefined ? String(generation) : undefined,
          text: state.actions[name] || name,
        }),
      ),
    );
  }

  function needText(need) {
    if (need === "resolution") return "indeterminate: did its effect happen?";
    if (need === "pending_approval") return "held for approval";
    return need;
  }

  function more(id, list) {
    $(id).hidden = !list.more;
  }

  function renderWaits() {
    const list = $("waits-list");
    list.replaceChildren();
    for (const w of state.waits.items) {
      list.append(
        el("li", { class: "wait", "data-wait": w.id, "data-need": w.need }, [
          el("span", { class: "need", text: needText(w.need) }),
          el("code", { class: "id", text: w.id }),
          el("span", { class: "muted", text: w.participant + (w.tool ? " · " + w.tool : "") + " · " + w.createdAt }),
          w.approval
            ? el("span", {
                class: "approval",
                "data-approval": w.approval.state,
                text: "requested " + w.approval.requestedAt + " · expires " + w.approval.expiresAt,
              })
            : null,
          buttons(w.actions, w.id),
          w.lapsed ? el("span", { class: "muted", "data-no-approve": w.lapsed.code, text: "(no approve: " + w.lapsed.message + ")" }) : null,
        ]),
      );
    }
    $("waits-empty").hidden = state.waits.items.length > 0;
    $("waits-count").textContent = String(state.waits.items.length) + (state.waits.more ? "+" : "");
    more("waits-more", state.waits);
  }

  function renderParticipants() {
    const body = $("participants-body");
    body.replaceChildren();
    for (const p of state.participants.items) {
      const schedulers = p.schedulers
        .map((s) => s.lifecycle + (s.stopReason ? " (" + s.stopReason + ")" : "") + ", " + s.attempts + " attempts")
        .join("; ");
      body.append(
        el("tr", { "data-participant": p.address }, [
          el("td", {}, [el("code", { text: p.address })]),
          el("td", { "data-lifecycle": p.schedulers.map((s) => s.lifecycle).join(" "), text: schedulers || "no scheduler" }),
          el("td", {
            "data-service": p.service ? p.service.lifecycle : undefined,
            "data-generation": p.service ? String(p.service.generation) : undefined,
            "data-health": p.service ? p.service.health : undefined,
            text: p.service
              ? p.service.lifecycle + ", generation " + p.service.generation + (p.service.health === "healthy" ? "" : ", " + p.service.health)
              : "no execution service",
          }),
          el("td", { class: "num", text: String(p.open) }),
          el("td", { class: "num", text: String(p.events) }),
          el("td", {}, [chainBadge(p.chain)]),
          el("td", {}, [buttons(p.actions, p.address, p.service ? p.service.generation : undefined)]),
        ]),
      );
    }
    $("participants-empty").hidden = state.participants.items.length > 0;
    more("participants-more", state.participants);
  }

  function resolutionText(o) {
    if (!o.resolution) return "";
    const r = o.resolution;
    return "resolved " + r.resolution + (r.operator ? " by " + r.operator : "") + " at " + r.resolvedAt;
  }

  function approvalText(a) {
    const asked = "approval requested " + a.requestedAt;
    if (a.state === "pending") return asked + ", pending until " + a.expiresAt;
    if (a.state === "expired") return asked + ", expired (" + (a.expiredBy || "timeout") + ") at " + (a.decidedAt || "?");
    return asked + ", " + a.state + (a.operator ? " by " + a.operator : "") + " at " + (a.decidedAt || "?");
  }

  function renderOperations() {
    const body = $("operations-body");
    body.replaceChildren();
    for (const o of state.operations.items) {
      body.append(
        el("tr", { "data-operation": o.id, "data-state": o.state }, [
          el("td", {}, [el("code", { text: o.id })]),
          el("td", { text: o.kind === "tool_action" ? "tool action" + (o.tool ? " · " + o.tool : "") : "invocation" }),
          el("td", { text: o.state + (o.withheldReason ? " (" + o.withheldReason + ")" : "") }),
          el("td", {
            "data-resolution": o.resolution ? o.resolution.resolution : undefined,
            "data-approval": o.approval ? o.approval.state : undefined,
            text: [o.approval ? approvalText(o.approval) : "", resolutionText(o)].filter(Boolean).join("; "),
          }),
          el("td", { text: o.updatedAt }),
        ]),
      );
    }
    $("operations-empty").hidden = state.operations.items.length > 0;
    more("operations-more", state.operations);
  }

  function frameUrl(address, version) {
    return (
      "/timeline?participant=" + encodeURIComponent(address) + "&token=" + encodeURIComponent(token) + "&v=" + encodeURIComponent(version)
    );
  }

  function syncFrame(address) {
    const frame = frames.get(address);
    if (!frame || !frame.details.open || frame.shown === frame.version) return;
    frame.shown = frame.version;
    if (!frame.iframe) {
      frame.iframe = el("iframe", { title: "timeline of " + address, sandbox: "allow-scripts", src: frameUrl(address, frame.version) });
      frame.details.append(frame.iframe);
    } else frame.iframe.setAttribute("src", frameUrl(address, frame.version));
  }

  function renderTimelines() {
    const container = $("timelines-list");
    const present = new Set();
    for (const p of state.participants.items) {
      present.add(p.address);
      let frame = frames.get(p.address);
      if (!frame) {
        const details = el("details", { class: "timeline", "data-timeline": p.address }, [el("summary", {}, [el("code", { text: p.address })])]);
        if (frames.size < 3) details.open = true;
        frame = { details, iframe: undefined, shown: "", version: "" };
        frames.set(p.address, frame);
        const address = p.address;
        details.addEventListener("toggle", () => syncFrame(address));
        container.append(details);
      }
      // A held call is not in history until it settles: its frame reloads when one is held or lapses.
      const held = state.waits.items.filter((w) => w.participant === p.address && w.need === "pending_approval");
      frame.version = [
        p.headSequence,
        held.length + "h" + held.filter((w) => w.lapsed).length + "l",
        p.schedulers.map((s) => s.lifecycle + "@" + s.updatedAt).join(","),
        p.chain.state,
        state.decisions.recorded,
        state.evidence.state,
      ].join("/");
      syncFrame(p.address);
    }
    for (const [address, frame] of frames)
      if (!present.has(address)) {
        frame.details.remove();
        frames.delete(address);
      }
  }

  function apply(next) {
    state = next;
    $("store").textContent = state.store;
    $("operator").textContent = state.operator;
    const decisions = $("decisions");
    decisions.replaceChildren(chainBadge(state.decisions, "operator decisions: " + state.decisions.recorded + " recorded, chain"));
    $("evidence").replaceChildren(chainBadge(state.evidence, "store evidence (raes verify):"));
    renderWaits();
    renderParticipants();
    renderOperations();
    renderTimelines();
    document.body.setAttribute("data-updates", String(Number(document.body.getAttribute("data-updates") || "0") + 1));
  }

  async function refresh() {
    const response = await fetch("/api/state", { headers: { "x-raes-token": token }, cache: "no-store" });
    if (response.ok) apply(await response.json());
  }

  // The message line tells the outcome of the latest action: an earlier one answered late (its
  // result pushed to the page before its response came) must not overwrite it.
  let actions = 0;

  async function act(button) {
    const mine = (actions += 1);
    const latest = (text, failed) => {
      if (mine === actions) say(text, failed);
    };
    const name = button.getAttribute("data-action");
    const subject = button.getAttribute("data-subject");
    const generation = button.getAttribute("data-generation");
    const question = state.confirms[name];
    if (question && !window.confirm(question + " " + subject)) return;
    button.disabled = true;
    say((state.actions[name] || name) + ": " + subject + "…");
    try {
      const response = await fetch("/api/actions/" + encodeURIComponent(name), {
        method: "POST",
        headers: { "content-type": "application/json", "x-raes-token": token },
        body: JSON.stringify({
          subject,
          note: $("note").value,
          generation: generation === null ? undefined : Number(generation),
        }),
        cache: "no-store",
        credentials: "omit",
      });
      const body = await response.json();
      if (response.ok) {
        latest((state.actions[name] || name) + ": " + subject + ", recorded as " + state.operator);
        $("note").value = "";
      } else latest(body.error.code + ": " + body.error.message, true);
      await refresh();
    } catch (error) {
      latest(String(error), true);
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("button[data-action]") : null;
    if (button) void act(button);
  });

  const live = $("live");
  const source = new EventSource("/api/events?token=" + encodeURIComponent(token));
  source.addEventListener("state", (event) => apply(JSON.parse(event.data)));
  source.addEventListener("open", () => {
    live.textContent = "live";
    live.setAttribute("data-live", "open");
  });
  source.addEventListener("error", () => {
    live.textContent = "reconnecting…";
    live.setAttribute("data-live", "closed");
  });
})();
`;
