export type { TimelineEvent, TimelineInput, TimelineScheduler } from "./model/index.js";
export { LISTED_FROM, readTimelineInput } from "./read.js";
export { renderTimelineHtml, TIMELINE_CSP, timelineHtmlParts } from "./render/index.js";
