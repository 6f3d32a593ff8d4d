export { BookClocks, type InvocationClock } from "./book-clocks.js";
export { StepClock, StepClockMovedError } from "./step-clock.js";
export { type RuntimeTimers, sleep, systemTimers } from "./timers.js";
export { isoClock, isoMicros, preciseNow } from "./timestamps.js";
