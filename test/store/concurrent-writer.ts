// A child process for the concurrency tests: opens the store URL in argv[2] and runs one
// invocation named argv[3] with argv[4] tool actions through admit, dispatch, settle and close.
import { openControlPlaneStore } from "../../src/store/open.js";
import { closeCommit, invocation, scheduler, toolAction } from "./records.js";

const [url, id, count] = process.argv.slice(2);
if (url === undefined || id === undefined || count === undefined) {
  throw new Error("usage: concurrent-writer URL INVOCATION_ID COUNT");
}
const store = await openControlPlaneStore(url, { busyTimeoutMs: 30_000 });
const participantAddress = `participant:green/${id}`;
const inv = invocation({ id, participantAddress });
await store.openInvocation(inv, scheduler({ participantAddress, attempts: 1 }));
const settled = [];
for (let i = 1; i <= Number(count); i++) {
  const admitted = toolAction(inv, i);
  await store.insertToolAction(admitted);
  const dispatched = { ...admitted, phase: "dispatched" as const };
  await store.updateToolAction(dispatched, "admitted");
  const done = { ...dispatched, phase: "settled" as const, settlement: "succeeded" as const };
  await store.updateToolAction(done, "dispatched");
  settled.push(done);
}
await store.commitInvocation(
  closeCommit(inv, settled, scheduler({ participantAddress, attempts: 1, nextOrdinal: 2 })),
);
await store.close();
