import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { crashRepetitions } from "../helpers/crash-rounds.js";
import { KILL_POINTS } from "./kill-points.js";
import { killAndRecover } from "./recovery-check.js";
import { killName, plannedKills } from "./runs.js";

const REPETITIONS = crashRepetitions(1, KILL_POINTS.length);

describe("crash recovery on SQLite: a real child killed with SIGKILL at every point", {
  concurrency: 3,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-crash-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const kill of plannedKills(REPETITIONS)) {
    it(killName(kill), async () => {
      const base = join(dir, `${kill.point}-${kill.repetition}`);
      await killAndRecover({ ...kill, url: `sqlite:${base}.db`, effectFile: `${base}.effects` });
    });
  }
});
