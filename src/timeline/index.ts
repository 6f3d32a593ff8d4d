export type { TimelineEvent, TimelineInput, TimelineScheduler } from "./model/index.js";
export { LISTED_FROM, readTimelineInput, readTimelinePage, type TimelinePage } from "./read.js";
export {
  type PageOptions,
  PageSummary,
  renderTimelineHtml,
  summaryHtmlParts,
  TIMELINE_CSP,
  timelineHtmlParts,
} from "./render/index.js";
