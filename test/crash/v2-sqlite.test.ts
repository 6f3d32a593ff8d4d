import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { crashRounds } from "../helpers/crash-rounds.js";
import { killAndResumeV2, plannedV2Kills } from "./v2-recovery.js";

const ROUNDS = crashRounds(10);

describe("v2 crash recovery on SQLite: SIGKILL mid-run, reopen, the trace goes on", {
  concurrency: 3,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-crash-v2-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  plannedV2Kills(ROUNDS).forEach((kill, round) => {
    const name = kill.killAt > 0 ? `native call ${kill.killAt}` : `after step ${kill.stepKill}`;
    it(`round ${round + 1}: SIGKILL at ${name}`, async () => {
      await killAndResumeV2({ ...kill, url: `sqlite:${join(dir, `round-${round}.db`)}` });
    });
  });
});
