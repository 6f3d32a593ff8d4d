/**
 * A process whose heartbeat expired this long ago is deleted from the membership table: a killed
 * process leaves no row behind forever, and one that was only slow has long been counted out.
 */
export const FORGET_PROCESS_AFTER_MS = 3_600_000;

/** Byte order of two strings, as `COLLATE "C"` and SQLite's BINARY sort text. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
