import { describe, it } from "node:test";
import { crashRounds } from "../helpers/crash-rounds.js";
import { freshSchema, postgresAvailable } from "../store/pg-available.js";
import { killAndResumeV3, plannedV3Kills } from "./v3-recovery.js";

const ROUNDS = crashRounds(8);
const available = await postgresAvailable("v3 crash recovery on PostgreSQL");

describe("v3 crash recovery on PostgreSQL: SIGKILL with a reservation held, reopen, budgets as RAES accounts the history", {
  concurrency: 2,
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  plannedV3Kills(ROUNDS).forEach((killAt, round) => {
    it(`round ${round + 1}: SIGKILL at native call ${killAt}`, async () => {
      const { url, drop } = freshSchema("raes_crash_v3");
      try {
        await killAndResumeV3(url, killAt);
      } finally {
        await drop();
      }
    });
  });
});
