/** The page's inline script: shows a mark's or invocation's stored details panel when it is clicked. */
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
})();
`;
