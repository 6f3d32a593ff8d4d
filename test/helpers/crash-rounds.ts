/**
 * SIGKILL rounds per crash suite: RAES_CRASH_ROUNDS, for example 200 for a long campaign, or the
 * suite's own CI count. `npm test` keeps the CI count so the whole run fits its time budget; the
 * kill points of the CI count are still spread over every native call position and step boundary.
 * A value that is not a positive integer is an error, so a typo never shortens a campaign silently.
 */
export function crashRounds(ciRounds: number): number {
  const raw = process.env.RAES_CRASH_ROUNDS;
  if (raw === undefined || raw === "") return ciRounds;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new Error(`RAES_CRASH_ROUNDS must be a positive integer, not ${JSON.stringify(raw)}`);
  return n;
}

/**
 * Repetitions of every kill point for a suite that kills at each of `points` points: the CI count,
 * or enough for RAES_CRASH_ROUNDS rounds in all when it is set.
 */
export function crashRepetitions(ciRepetitions: number, points: number): number {
  return Math.ceil(crashRounds(ciRepetitions * points) / points);
}
