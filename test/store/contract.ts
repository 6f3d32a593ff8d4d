import { afterEach, beforeEach, describe } from "node:test";
import type { ControlPlaneStore } from "../../src/store/index.js";
import { approvalCases } from "./contract-approvals.js";
import { budgetEventCases } from "./contract-budget-events.js";
import { clockCases } from "./contract-clock.js";
import { clockFoldCases } from "./contract-clock-fold.js";
import { commitCases } from "./contract-commit.js";
import { decisionCases } from "./contract-decisions.js";
import { durabilityCases } from "./contract-durability.js";
import { historyBodyCases } from "./contract-history.js";
import { inDoubtCases } from "./contract-in-doubt.js";
import { leaseCases } from "./contract-leases.js";
import { membershipCases } from "./contract-membership.js";
import { operationCases, refusalCountCases } from "./contract-operations.js";
import { pageCases } from "./contract-pages.js";
import { poolCases } from "./contract-pools.js";
import { recordCases } from "./contract-records.js";
import { recoveryCases } from "./contract-recovery.js";
import { pacingCases, serviceCases } from "./contract-services.js";

/** A store under test; `reopen` (durable stores only) opens the same URL again after `store.close()`. */
export interface StoreFixture {
  readonly store: ControlPlaneStore;
  readonly cleanup: () => Promise<void>;
  readonly reopen?: () => Promise<ControlPlaneStore>;
}

/**
 * A durable store's fixture: `open` opens the same store each time (for `reopen`); the cleanup
 * closes every one it opened, then runs `dispose`.
 */
export async function reopenable(
  open: () => ControlPlaneStore | Promise<ControlPlaneStore>,
  dispose: () => void,
): Promise<StoreFixture> {
  const opened: ControlPlaneStore[] = [];
  const reopen = async () => {
    const store = await open();
    opened.push(store);
    return store;
  };
  return {
    store: await reopen(),
    reopen,
    cleanup: async () => {
      for (const s of opened) await s.close();
      dispose();
    },
  };
}

/** Gives each case a fresh fixture. */
export type FixtureSource = () => StoreFixture;

/** Runs the ControlPlaneStore contract against a store implementation, one fresh store per case. */
export function runStoreContract(name: string, makeStore: () => Promise<StoreFixture>): void {
  describe(`${name} store contract`, () => {
    let fixture: StoreFixture | undefined;
    beforeEach(async () => {
      fixture = await makeStore();
    });
    afterEach(async () => {
      await fixture?.cleanup();
      fixture = undefined;
    });
    const current: FixtureSource = () => {
      if (!fixture) throw new Error("no store fixture");
      return fixture;
    };
    describe("records", () => recordCases(current));
    describe("invocation commit", () => commitCases(current));
    describe("clock and scheduler watermark", () => clockCases(current));
    describe("invocation open carrying a clock change", () => clockFoldCases(current));
    describe("leases and fencing", () => leaseCases(current));
    describe("process membership", () => membershipCases(current));
    describe("operation listing", () => operationCases(current));
    describe("refusal counts", () => refusalCountCases(current));
    describe("in-doubt operations of a dead runtime", () => inDoubtCases(current));
    describe("durability", () => durabilityCases(current));
    describe("recovery reads and batches", () => recoveryCases(current));
    describe("history bodies", () => historyBodyCases(current));
    describe("page reads", () => pageCases(current));
    describe("operator decisions", () => decisionCases(current));
    describe("participant services", () => serviceCases(current));
    describe("pacing deviations", () => pacingCases(current));
    describe("approvals", () => approvalCases(current));
    describe("shared v3 resource pools", () => poolCases(current));
    describe("v3 budget events", () => budgetEventCases(current));
  });
}
