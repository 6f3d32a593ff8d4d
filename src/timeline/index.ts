export type { TimelineChain, TimelineEvent, TimelineInput, TimelineScheduler } from "./model/index.js";
export { LISTED_FROM, readTimelineInput, type TimelineReadOptions } from "./read.js";
export { renderTimelineHtml, TIMELINE_CSP, timelineHtmlParts } from "./render/index.js";
