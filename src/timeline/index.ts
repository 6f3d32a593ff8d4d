export type { TimelineChain, TimelineEvent, TimelineInput, TimelineScheduler } from "./model/index.js";
export {
  LISTED_FROM,
  readTimelineInput,
  readTimelinePage,
  type TimelinePage,
  type TimelinePageOptions,
  type TimelineReadOptions,
} from "./read.js";
export {
  type PageOptions,
  PageSummary,
  renderTimelineHtml,
  summaryHtmlParts,
  TIMELINE_CSP,
  timelineHtmlParts,
} from "./render/index.js";
