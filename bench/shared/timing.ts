/**
 * Timing shared by bench suites: blocks of the real side and its floor (or of several sides) taken in
 * turn after the same warm-up, so a change in machine load hits every side alike, and their medians
 * and ratios.
 */
import type { FloorRow, Measurement } from "./tables.js";

/** The time one block took and how many units of work (calls, cycles, invocations) it did. */
export interface BlockTime {
  readonly ms: number;
  readonly units: number;
  /** CPU time (user + system) of this process during the block, where it was measured. */
  readonly cpuMs?: number;
}

/** Runs one block of one side of a comparison. */
export type Block = () => BlockTime | Promise<BlockTime>;

/** Both sides of a comparison, measured in alternating blocks in one run. */
export interface Alternation {
  readonly real: readonly BlockTime[];
  readonly floor: readonly BlockTime[];
  /** Median over the blocks of ms per unit, each side. */
  readonly realMs: number;
  readonly floorMs: number;
  /** `realMs / floorMs`: how many times the floor's cost the real side costs. */
  readonly ratio: number;
  /** Median over the block pairs of real ms per unit ÷ floor ms per unit. */
  readonly pairedRatio: number;
}

/** The median of a list (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

const perUnit = (b: BlockTime) => b.ms / b.units;

/**
 * Runs `warmup` untimed blocks of each side, then `blocks` timed blocks alternating real, floor, real,
 * floor…, so both sides are warmed alike and a change in machine load hits both; reports the median
 * block of each side and their ratio.
 */
export async function alternate(
  real: Block,
  floor: Block,
  options: { readonly blocks: number; readonly warmup?: number },
): Promise<Alternation> {
  const [realBlocks = [], floorBlocks = []] = await rotate([real, floor], options);
  return alternationOf(realBlocks, floorBlocks);
}

/**
 * Runs `warmup` untimed rounds, then `blocks` timed rounds, of one block of every side in turn
 * (A, B, C, A, B, C…); gives each side's timed blocks.
 */
export async function rotate(
  sides: readonly Block[],
  options: { readonly blocks: number; readonly warmup?: number },
): Promise<BlockTime[][]> {
  for (let i = 0; i < (options.warmup ?? 1); i += 1) for (const side of sides) await side();
  const timed = sides.map((): BlockTime[] => []);
  for (let i = 0; i < options.blocks; i += 1) {
    for (const [k, side] of sides.entries()) timed[k]?.push(await side());
  }
  return timed;
}

/** The medians and ratios of blocks timed in pairs (the i-th real block beside the i-th floor block). */
export function alternationOf(real: readonly BlockTime[], floor: readonly BlockTime[]): Alternation {
  const realMs = median(real.map(perUnit));
  const floorMs = median(floor.map(perUnit));
  const pairs = real.map((b, i) => perUnit(b) / perUnit(floor[i] as BlockTime));
  return { real, floor, realMs, floorMs, ratio: realMs / floorMs, pairedRatio: median(pairs) };
}

/** Times `work` (wall and this process's CPU time) as one block of `units` units. */
export async function timedBlock(units: number, work: () => Promise<void>): Promise<BlockTime> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const ms = performance.now() - start;
  const { user, system } = process.cpuUsage(cpu);
  return { ms, units, cpuMs: (user + system) / 1000 };
}

/** A block of `calls` calls of `fn` (awaited when it returns a promise), timed as a whole. */
export function callsBlock(fn: () => unknown, calls: number): Block {
  return async () => {
    const start = performance.now();
    for (let i = 0; i < calls; i += 1) {
      const result = fn();
      if (result instanceof Promise) await result;
    }
    return { ms: performance.now() - start, units: calls };
  };
}

/** The two sides of an alternation as measurements (median ms per unit), for `printFloorTable`. */
export function asFloorRow(
  label: string,
  floorLabel: string,
  alternation: Alternation,
  extra?: readonly string[],
): FloorRow {
  const of = (name: string, blocks: readonly BlockTime[], ms: number): Measurement => ({
    label: name,
    runs: blocks.reduce((sum, b) => sum + b.units, 0),
    meanMs: blocks.reduce((sum, b) => sum + b.ms, 0) / blocks.reduce((sum, b) => sum + b.units, 0),
    medianMs: ms,
    minMs: Math.min(...blocks.map(perUnit)),
  });
  return {
    measurement: of(label, alternation.real, alternation.realMs),
    floor: of(floorLabel, alternation.floor, alternation.floorMs),
    ...(extra === undefined ? {} : { extra }),
  };
}
