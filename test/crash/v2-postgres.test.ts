import { describe, it } from "node:test";
import { crashRounds } from "../helpers/crash-rounds.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { killAndResumeV2, plannedV2Kills } from "./v2-recovery.js";

const ROUNDS = crashRounds(10);
const available = await postgresAvailable("v2 crash recovery on PostgreSQL");

describe("v2 crash recovery on PostgreSQL: SIGKILL mid-run, reopen, the trace goes on", {
  concurrency: 3,
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  plannedV2Kills(ROUNDS).forEach((kill, round) => {
    const name = kill.killAt > 0 ? `native call ${kill.killAt}` : `after step ${kill.stepKill}`;
    it(`round ${round + 1}: SIGKILL at ${name}`, async () => {
      const { url, drop } = freshSchema("raes_crash_v2");
      try {
        await killAndResumeV2({ ...kill, url });
      } finally {
        await drop();
      }
    });
  });
});
