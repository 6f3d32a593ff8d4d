import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ChainWatch } from "../../src/serve/chain.js";
import { TimelineFrames } from "../../src/serve/frames.js";
import { openControlPlaneStore } from "../../src/store/open.js";
import { afterVerify, OUTSIDE_HISTORY_TAMPERS, TAMPERABLE_STORES } from "../helpers/tampered-store.js";
import { postgresAvailable } from "../store/pg-available.js";
import { P1 } from "../store/records.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-serve-verdict-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

/** One check of the console's chain watch over `url`, and P1's timeline frame drawn with its views. */
async function consoleSees(url: string) {
  const store = await openControlPlaneStore(url);
  try {
    const watch = new ChainWatch(store, { minIntervalMs: 0, recheckMs: 0 });
    watch.observe(await store.listChainHeads(), await store.getDecisionHead());
    await watch.settled();
    const frame = await new TimelineFrames(store, url).html(P1, "v", watch.participant(P1), watch.store());
    return { verdict: watch.store(), participant: watch.participant(P1), frame: frame ?? "" };
  } finally {
    await store.close();
  }
}

for (const kind of TAMPERABLE_STORES) {
  describe(`raes serve's verdict agrees with raes verify --store over ${kind.name}`, async () => {
    if (kind.name === "PostgreSQL" && !(await postgresAvailable("serve verdict tampering"))) return;

    it("shows verified where raes verify exits 0", () =>
      afterVerify(kind, DIR, undefined, async (url, verified) => {
        assert.equal(verified.code, 0);
        const seen = await consoleSees(url);
        assert.equal(seen.verdict.state, "verified");
        assert.match(seen.frame, /data-chain="verified"/);
      }));

    for (const tamper of OUTSIDE_HISTORY_TAMPERS) {
      it(`shows broken with raes verify's failure after ${tamper.name}, its history chain intact`, () =>
        afterVerify(kind, DIR, tamper, async (url, verified) => {
          assert.equal(verified.code, 1, verified.stdout + verified.stderr);
          const line = verified.stdout.trim();
          const seen = await consoleSees(url);
          // The participant's own chain is intact: only the store-wide check sees this tampering.
          assert.equal(seen.participant.state, "verified");
          assert.equal(seen.verdict.state, "broken");
          assert.equal(seen.verdict.failure, line.slice(line.indexOf(": ") + 2));
          assert.ok(seen.verdict.failure?.includes(tamper.says));
          assert.match(seen.frame, /data-chain="broken"/);
          assert.doesNotMatch(seen.frame, /data-chain="verified"/);
        }));
    }
  });
}
