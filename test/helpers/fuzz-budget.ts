import { appendFileSync } from "node:fs";

/** What every fuzz target runs in CI: 5 000 generated inputs per target (the long run is RAES_FUZZ_INPUTS). */
export const CI_FUZZ_INPUTS = 5_000;

/**
 * Generated inputs per fuzz target (socket bridge, worker bridge, gateway, loaders): RAES_FUZZ_INPUTS,
 * for example 1000000 for the long run, or CI's 5 000. A value that is not a positive integer is an error,
 * so a typo never turns a long run silently into a short one.
 */
export function fuzzInputsPerTarget(): number {
  const raw = process.env.RAES_FUZZ_INPUTS;
  if (raw === undefined || raw === "") return CI_FUZZ_INPUTS;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new Error(`RAES_FUZZ_INPUTS must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

/** The target's share of its inputs, so the shares of one target add up to at least its whole count. */
export function shareOf(total: number, fraction: number): number {
  return Math.ceil(total * fraction);
}

/** Whether the run is at least CI's size, where every family of input must have been generated. */
export function fullRun(inputs: number): boolean {
  return inputs >= CI_FUZZ_INPUTS;
}

/** RAES_FUZZ_PROGRESS names a file that gets a line of running figures every 10 000 inputs of a long run. */
export function reportProgress(inputs: number, line: () => string): void {
  const file = process.env.RAES_FUZZ_PROGRESS;
  if (file && inputs > 0 && inputs % 10_000 === 0) appendFileSync(file, `${line()}\n`);
}

const MB = 1024 * 1024;

/** Running figures of a fuzz target: wall and CPU seconds, RSS now and its peak. */
export function processFigures(started: number, rssBefore: number, cpuBefore: NodeJS.CpuUsage): string {
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const rss = process.memoryUsage().rss;
  const peak = process.resourceUsage().maxRSS * 1024;
  return `${seconds.toFixed(1)} s (CPU ${cpuSeconds.toFixed(1)} s); RSS ${(rssBefore / MB).toFixed(0)} -> ${(rss / MB).toFixed(0)} MB, peak ${(peak / MB).toFixed(0)} MB`;
}
