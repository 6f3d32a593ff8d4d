export { activityRows, retryChain } from "./activity.js";
export type { DetailSection, DetailSpec, DetailValue } from "./details.js";
export { escapeHtml } from "./escape.js";
export {
  type PageOptions,
  renderTimelineHtml,
  summarizeInput,
  summaryHtmlParts,
  TIMELINE_CSP,
  timelineHtmlParts,
} from "./page.js";
export {
  FilePanels,
  MemoryPanels,
  OneParticipantPanels,
  type PanelStore,
  SecondParticipantError,
} from "./panel-store.js";
export { decodeDetail, detailBlocks } from "./panels.js";
export { PageSummary, type ParticipantSummary } from "./summary.js";
