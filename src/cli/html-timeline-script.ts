/** The page's inline script: shows a mark's or invocation's stored details panel when it is clicked or linked (#id). */
export const TIMELINE_SCRIPT = `
(() => {
  const body = document.getElementById("details-body");
  const empty = body.innerHTML;
  let selected = null;
  const select = (trigger) => {
    if (selected) selected.setAttribute("aria-pressed", "false");
    selected = trigger;
    if (!trigger) { body.innerHTML = empty; return; }
    const template = document.getElementById(trigger.dataset.detail);
    if (!(template instanceof HTMLTemplateElement)) return;
    body.replaceChildren(template.content.cloneNode(true));
    trigger.setAttribute("aria-pressed", "true");
  };
  document.addEventListener("click", (event) => {
    const trigger = event.target instanceof Element ? event.target.closest("[data-detail]") : null;
    if (trigger) select(trigger);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") select(null);
  });
  // A link to one action or invocation (#id) opens its details and scrolls it into view.
  const follow = () => {
    let id = "";
    try { id = decodeURIComponent(location.hash.slice(1)); } catch { return; }
    const target = id ? document.getElementById(id) : null;
    if (!target) return;
    const trigger = target.matches("[data-detail]") ? target : target.querySelector("[data-detail]");
    if (!trigger) return;
    select(trigger);
    trigger.scrollIntoView({ block: "center" });
  };
  window.addEventListener("hashchange", follow);
  follow();
})();
`;
