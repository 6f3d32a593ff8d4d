import { applyClockChange } from "../clock.js";
import { columnNames, fromExcluded } from "../sql/index.js";
import type { ClockChange, ClockFold, ClockRecord } from "../types.js";
import { CLOCK_COLUMNS, type ClockRow, clockRecord, clockValues } from "./rows.js";
import type { Queryable } from "./sticky.js";

const COLUMNS = columnNames(CLOCK_COLUMNS).join(", ");
const PARAMS = CLOCK_COLUMNS.map(([, type], i) => `$${i + 1}::${type}`).join(", ");

const SAVE_CLOCK = `INSERT INTO clocks (${COLUMNS}) VALUES (${PARAMS})
  ON CONFLICT (clock_address) DO UPDATE SET ${fromExcluded(columnNames(CLOCK_COLUMNS), ["clock_address"])}`;

// Creates the clock as `initial` when absent, else leaves it; either way returns the stored row.
const FIND_OR_CREATE = `WITH created AS (INSERT INTO clocks (${COLUMNS}) VALUES (${PARAMS})
    ON CONFLICT (clock_address) DO NOTHING RETURNING *)
  SELECT * FROM created UNION ALL SELECT * FROM clocks WHERE clock_address = $1::text
    AND NOT EXISTS (SELECT 1 FROM created)`;

// Writes the changed clock only if the row is still the one the change was computed from: $1 and the
// new values in column order, then the expected values of every column but the address.
const EXPECTED_FROM = CLOCK_COLUMNS.length + 1;
const SWAP = `UPDATE clocks SET ${CLOCK_COLUMNS.slice(1)
  .map(([name, type], i) => `${name} = $${i + 2}::${type}`)
  .join(", ")}
  WHERE clock_address = $1::text AND ${CLOCK_COLUMNS.slice(1)
    .map(([name, type], i) => `${name} = $${i + EXPECTED_FROM}::${type}`)
    .join(" AND ")}`;

/**
 * A CTE writing an open's clock change (`ClockFold`), from parameter `$first` on (`foldValues`): the
 * expected clock's columns, then the change. The row is written only where the change, applied to it
 * as `applyClockChange` does, yields the expected clock; under READ COMMITTED the condition is
 * evaluated again on the newest row when a concurrent change committed first.
 */
export function foldClockCte(first: number, guard: string): string {
  const p = (i: number, type: string) => `$${first + i}::${type}`;
  const [reset, paused, ticks, toSegment, toGeneration, toTick] = [6, 7, 8, 9, 10, 11].map((i) =>
    p(i, i <= 7 ? "boolean" : "bigint"),
  );
  const bump = `CASE WHEN ${reset} THEN 1 ELSE 0 END`;
  const nowPaused = `COALESCE(${paused}, paused)`;
  const target = `CASE WHEN ${toTick} IS NOT NULL AND NOT ${nowPaused} AND ${toSegment} = segment + ${bump}
      AND ${toGeneration} = generation + ${bump} THEN ${toTick} ELSE 0 END`;
  const advanced = `CASE WHEN ${reset} THEN 0 ELSE tick END + CASE WHEN ${nowPaused} THEN 0 ELSE COALESCE(${ticks}, 0) END`;
  return `clocked AS (UPDATE clocks SET ${CLOCK_COLUMNS.slice(1)
    .map(([name, type], i) => `${name} = ${p(i + 1, type)}`)
    .join(", ")}
    WHERE clock_address = ${p(0, "text")} AND ${guard}
      AND segment + ${bump} = ${p(1, "bigint")} AND generation + ${bump} = ${p(3, "bigint")}
      AND ${nowPaused} = ${p(4, "boolean")} AND GREATEST(${advanced}, ${target}) = ${p(2, "bigint")}
    RETURNING 1)`;
}

/** The parameters of `foldClockCte`: the clock it writes, then the change. */
export function foldValues(fold: ClockFold): unknown[] {
  const { change } = fold;
  const to = change.advanceTo;
  return [
    ...clockValues({ ...fold.expected, updatedAt: change.at }),
    change.reset === true,
    change.paused ?? null,
    change.advanceTicks ?? null,
    to?.segment ?? null,
    to?.generation ?? null,
    to?.tick ?? null,
  ];
}

/**
 * The clock writes of the PostgreSQL store. A change is compare-and-swap on the row this process last
 * saw: one statement and one round trip when nobody else moved the clock (it was a transaction of four:
 * BEGIN, lock, write, COMMIT), a re-read and another try when someone did. Concurrent changes still
 * apply one after another, each to the clock the other left; the semantics stay in `applyClockChange`.
 */
export class PostgresClockWrites {
  readonly #pool: Queryable;
  /** The clock row this process last read or wrote, by address: the expected row of the next swap. */
  readonly #seen = new Map<string, ClockRecord>();

  constructor(pool: Queryable) {
    this.#pool = pool;
  }

  /** The row to expect at `address` in the next swap (after an open that carried a change), or none: read it. */
  remember(address: string, clock: ClockRecord | undefined): void {
    if (clock) this.#seen.set(address, clock);
    else this.#seen.delete(address);
  }

  /** Upserts the clock. */
  async saveClock(clock: ClockRecord): Promise<void> {
    this.#seen.delete(clock.clockAddress);
    await this.#pool.query({ name: "raes_save_clock", text: SAVE_CLOCK, values: clockValues(clock) });
    this.#seen.set(clock.clockAddress, clock);
  }

  /** Applies the change to the stored clock (created as `initial` when absent) and returns the result. */
  async updateClock(initial: ClockRecord, change: ClockChange): Promise<ClockRecord> {
    const address = initial.clockAddress;
    let current = this.#seen.get(address);
    for (;;) {
      if (current === undefined) current = await this.#findOrCreate(initial);
      const next = applyClockChange(current, change);
      this.#seen.delete(address);
      const { rowCount } = await this.#pool.query({
        name: "raes_swap_clock",
        text: SWAP,
        values: [...clockValues(next), ...clockValues(current).slice(1)],
      });
      if ((rowCount ?? 0) > 0) {
        this.#seen.set(address, next);
        return next;
      }
      current = undefined;
    }
  }

  async #findOrCreate(initial: ClockRecord): Promise<ClockRecord> {
    // A creation racing another waits for it, then sees no row in its own snapshot: ask once more.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const { rows } = await this.#pool.query<ClockRow>({
        name: "raes_find_clock",
        text: FIND_OR_CREATE,
        values: clockValues(initial),
      });
      const row = rows[0];
      if (row) return clockRecord(row);
    }
    throw new Error(`clock ${initial.clockAddress} was neither found nor created`);
  }
}
