// A child process for the concurrency tests: opens the store URL in argv[2] and advances the
// shared clock by argv[4] ticks argv[3] times, one updateClock each.
import { openControlPlaneStore } from "../../src/store/open.js";
import { clock } from "./records.js";

const [url, count, step] = process.argv.slice(2);
if (url === undefined || count === undefined || step === undefined) {
  throw new Error("usage: concurrent-clock URL COUNT STEP");
}
const store = await openControlPlaneStore(url, { busyTimeoutMs: 30_000 });
for (let i = 0; i < Number(count); i++) {
  await store.updateClock(clock({ tick: 0 }), { advanceTicks: Number(step), at: new Date().toISOString() });
}
await store.close();
