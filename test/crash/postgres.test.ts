import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { crashRepetitions } from "../helpers/crash-rounds.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { KILL_POINTS } from "./kill-points.js";
import { killAndRecover } from "./recovery-check.js";
import { killName, plannedKills } from "./runs.js";

const REPETITIONS = crashRepetitions(1, KILL_POINTS.length);
const available = await postgresAvailable("crash recovery on PostgreSQL");

describe("crash recovery on PostgreSQL: a real child killed with SIGKILL at every point", {
  concurrency: 2,
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-crash-pg-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const kill of plannedKills(REPETITIONS)) {
    it(killName(kill), async () => {
      const { url, drop } = freshSchema("raes_crash");
      try {
        const effectFile = join(dir, `${kill.point}-${kill.repetition}.effects`);
        await killAndRecover({ ...kill, url, effectFile });
      } finally {
        await drop();
      }
    });
  }
});
