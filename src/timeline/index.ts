export type { TimelineInput, TimelineScheduler } from "./model/index.js";
export { LISTED_FROM, readTimelineInput } from "./read.js";
export { renderTimelineHtml, TIMELINE_CSP } from "./render/index.js";
