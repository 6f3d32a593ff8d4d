import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { crashRounds } from "../helpers/crash-rounds.js";
import { killAndResumeV3, plannedV3Kills } from "./v3-recovery.js";

const ROUNDS = crashRounds(8);

describe("v3 crash recovery on SQLite: SIGKILL with a reservation held, reopen, budgets as RAES accounts the history", {
  concurrency: 2,
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-crash-v3-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  plannedV3Kills(ROUNDS).forEach((killAt, round) => {
    it(`round ${round + 1}: SIGKILL at native call ${killAt}`, async () => {
      await killAndResumeV3(`sqlite:${join(dir, `round-${round}.db`)}`, killAt);
    });
  });
});
