export { activityRows, retryChain } from "./activity.js";
export type { DetailSection, DetailSpec, DetailValue } from "./details.js";
export { escapeHtml } from "./escape.js";
export { renderTimelineHtml, TIMELINE_CSP, timelineHtmlParts } from "./page.js";
export { DetailPanels, decodeDetail } from "./panels.js";
