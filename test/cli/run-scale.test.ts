import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { generatedManifest, generateScenario } from "../../bench/shared/index.js";
import { compileScenario, loadScenario, openControlPlaneStore } from "../../src/index.js";
import {
  assertEffectsOnlyOnce,
  assertHistoryExact,
  dispatchedIds,
  readStoreState,
} from "../crash/store-state.js";
import { readEffects } from "../helpers/child-harness.js";
import { cliNodeArgs } from "../helpers/cli-entry.js";
import { ROOT } from "../helpers/example.js";
import { adminQuery, freshSchema, postgresAvailable } from "../store/pg-available.js";

const M = 64;
const available = await postgresAvailable("raes run processes sharing participants");
const HARNESS = join(ROOT, "test", "fixtures", "runtimes", "scale-harness.ts");
const SHARE = /^share: owns (\d+)\/(\d+) participants \((\d+) process(?:es)?\)$/;

/** One `raes run` process and every line it printed. */
class RunProcess {
  readonly lines: string[] = [];
  stderr = "";
  readonly exited: Promise<number | null>;
  readonly child: ChildProcess;

  constructor(args: readonly string[], env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, cliNodeArgs(args), {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let rest = "";
    this.child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      const parts = (rest + d).split("\n");
      rest = parts.pop() ?? "";
      this.lines.push(...parts);
    });
    this.child.stderr?.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.exited = new Promise((resolve) => this.child.on("close", (code) => resolve(code)));
  }

  /** The share lines printed so far, as [owned, participants, processes]. */
  shares(): number[][] {
    return this.lines.flatMap((l) => {
      const m = SHARE.exec(l);
      return m ? [[Number(m[1]), Number(m[2]), Number(m[3])]] : [];
    });
  }
}

/** Polls `check` until it returns a value, with a generous deadline (no timing is asserted). */
async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  state: () => Promise<string> | string = () => "",
  deadlineMs = 240_000,
): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= end) assert.fail(`gave up waiting: ${what}\n${await state()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("raes run: processes on one PostgreSQL share the participants", {
  skip: available ? false : "POSTGRES UNAVAILABLE",
}, () => {
  const dir = mkdtempSync(join(tmpdir(), "raes-scale-"));
  const { schema, url, drop } = freshSchema("raes_scale");
  const procs: RunProcess[] = [];
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("4 processes own 16 each; one SIGKILLed mid-invocation: its participants continue elsewhere, nothing lost or run twice", async () => {
    // A cadence of 20 steps and 250 ms steps keep four processes sharing two cores light.
    const yaml = generateScenario(M)
      .replace("max_action_attempts: 100\n", "max_action_attempts: 100000\n")
      .replace("cadence_ticks: 10\n", "cadence_ticks: 200\n");
    const scenarioPath = join(dir, "scale.yaml");
    writeFileSync(scenarioPath, yaml);
    const { scenario } = loadScenario(scenarioPath);
    assert.ok(scenario);
    const manifestPath = join(dir, "scale.manifest.json");
    writeFileSync(manifestPath, JSON.stringify(generatedManifest(compileScenario(scenario))));
    const effects = join(dir, "effects");
    const args = [
      "run",
      scenarioPath,
      "--manifest",
      manifestPath,
      "--runtime",
      HARNESS,
      "--store",
      url,
      "--tick-ms",
      "250",
      "--lease-ttl-ms",
      "10000",
    ];
    const env = { RAES_SCALE_EFFECTS: effects, RAES_SCALE_SLEEP_MS: "100" };
    for (let i = 0; i < 4; i += 1) procs.push(new RunProcess(args, env));

    const counts = async () =>
      new Map(
        (
          await adminQuery<{ owner_id: string; n: number }>(
            `SELECT owner_id, count(*)::int AS n FROM ${schema}.leases WHERE owner_id IS NOT NULL GROUP BY owner_id`,
          ).catch(() => [])
        ).map((r) => [r.owner_id, r.n]),
      );
    const balanced = (owners: Map<string, number>, n: number) =>
      owners.size === n &&
      [...owners.values()].reduce((a, b) => a + b, 0) === M &&
      [...owners.values()].every((c) => Math.abs(c - M / n) <= 1);
    const report = async () =>
      [
        JSON.stringify([...(await counts())]),
        ...procs.map(
          (p) =>
            `pid ${p.child.pid} exit ${p.child.exitCode} shares ${JSON.stringify(p.shares().slice(-3))} stderr ${p.stderr.slice(-500)}`,
        ),
      ].join("\n");
    const four = await until(
      "four processes sharing 64 participants evenly",
      async () => {
        const owners = await counts();
        const seen = procs.every((p) => {
          const [owned = -1, , processes] = p.shares().at(-1) ?? [];
          return processes === 4 && Math.abs(owned - 16) <= 1;
        });
        return balanced(owners, 4) && seen ? owners : undefined;
      },
      report,
    );
    for (const p of procs) {
      const [owned = -1, of, processes] = p.shares().at(-1) ?? [];
      assert.ok(Math.abs(owned - 16) <= 1 && of === M && processes === 4, `share line ${p.shares().at(-1)}`);
    }

    const victim = procs[1];
    assert.ok(victim?.child.pid);
    const victimOwner = [...four.keys()].find((id) => id.split("/")[1] === String(victim.child.pid));
    assert.ok(victimOwner, "the victim's owner id names its pid");
    const victimParticipants = async () =>
      (
        await adminQuery<{ participant_address: string }>(
          `SELECT participant_address FROM ${schema}.leases WHERE owner_id = $1`,
          [victimOwner],
        )
      ).map((r) => r.participant_address);
    // Mid-run: the victim has an invocation open. It is frozen before the look, so the invocation
    // seen open cannot close before the kill (it did once, between a look and a kill).
    const orphans = await until("an open invocation of the victim", async () => {
      victim.child.kill("SIGSTOP");
      // A statement already sent still commits on the server: give it time, then look.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const mine = await victimParticipants();
      const [open] = await adminQuery<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${schema}.invocations WHERE state = 'running' AND participant_address = ANY($1)`,
        [mine],
      );
      if ((open?.n ?? 0) > 0) return mine;
      victim.child.kill("SIGCONT");
      return undefined;
    });
    victim.child.kill("SIGKILL");
    await victim.exited;
    const ordinalsAtKill = new Map(
      (
        await adminQuery<{ participant_address: string; n: number }>(
          `SELECT participant_address, count(*)::int AS n FROM ${schema}.invocations GROUP BY participant_address`,
        )
      ).map((r) => [r.participant_address, r.n]),
    );

    const survivors = procs.filter((p) => p !== victim);
    await until(
      "three processes sharing 64 participants evenly",
      async () => {
        const seen = survivors.every((p) => {
          const [owned = -1, , processes] = p.shares().at(-1) ?? [];
          return processes === 3 && Math.abs(owned - M / 3) <= 1;
        });
        return balanced(await counts(), 3) && seen ? true : undefined;
      },
      report,
    );
    const store = await openControlPlaneStore(url);
    try {
      await until("every orphan not stopped runs again elsewhere", async () => {
        const stopped = new Set(
          (
            await adminQuery<{ participant_address: string }>(
              `SELECT participant_address FROM ${schema}.schedulers WHERE lifecycle = 'stopped'`,
            )
          ).map((r) => r.participant_address),
        );
        const now = new Map(
          (
            await adminQuery<{ participant_address: string; n: number }>(
              `SELECT participant_address, count(*)::int AS n FROM ${schema}.invocations GROUP BY participant_address`,
            )
          ).map((r) => [r.participant_address, r.n]),
        );
        const ran = (p: string) => (now.get(p) ?? 0) > (ordinalsAtKill.get(p) ?? 0);
        return orphans.every((p) => stopped.has(p) || ran(p)) ? true : undefined;
      });
      for (const p of survivors) p.child.kill("SIGINT");
      const codes = await Promise.all(survivors.map((p) => p.exited));
      for (const [i, p] of survivors.entries()) {
        assert.ok(codes[i] === 0 || codes[i] === 1, `exit ${codes[i]}: ${p.stderr}`);
        assert.doesNotMatch(p.stderr, / failed: /, "an invocation failed in a live process");
        assert.ok(
          p.shares().some(([owned = 0, , processes]) => processes === 3 && Math.abs(owned - M / 3) <= 1),
          "it showed its share of three",
        );
        // Processes stop one by one, so the last share each saw may count fewer.
        assert.match(
          p.lines.join("\n"),
          /^owns \d+\/64 participants \(\d process(es)?\)$/m,
          "the summary's share",
        );
      }

      const state = await readStoreState(store);
      assert.deepEqual(
        state.invocations.filter((i) => i.state === "running"),
        [],
        "an invocation was left open",
      );
      const interrupted = state.invocations.filter((i) => i.state !== "succeeded");
      assert.ok(interrupted.length >= 1, "the kill interrupted an invocation");
      for (const i of interrupted) {
        assert.ok(orphans.includes(i.participantAddress), `${i.id} failed outside the victim's share`);
        assert.equal(i.state, "failed", `${i.id} was not consumed by recovery`);
      }
      assert.deepEqual(
        state.events.map((e) => e.sequence),
        state.events.map((_, i) => i + 1),
        "history sequence numbers have a gap or a duplicate",
      );
      // Participants commit in any interleaving; each one's history is exact on its own.
      for (const s of state.schedulers) {
        const p = s.participantAddress;
        const events = state.events.filter((e) => e.participant_address === p);
        assertHistoryExact(
          {
            schedulers: [s],
            invocations: state.invocations.filter((i) => i.participantAddress === p),
            toolActions: state.toolActions.filter((a) => a.participantAddress === p),
            events: events.map((e, i) => ({ ...e, sequence: i + 1 })),
          },
          new Set(interrupted.map((i) => i.id)),
        );
      }
      const ran = readEffects(effects);
      assertEffectsOnlyOnce(ran, dispatchedIds(state));
      const succeeded = state.toolActions.filter((a) => a.settlement === "succeeded").map((a) => a.id);
      assert.deepEqual(
        succeeded.filter((id) => !ran.includes(id)),
        [],
        "a tool action succeeded without its effect",
      );
      const cadence = 200;
      for (const s of state.schedulers) {
        const ticks = state.invocations
          .filter((i) => i.participantAddress === s.participantAddress)
          .sort((a, b) => a.ordinal - b.ordinal)
          .map((i) => i.tick);
        assert.equal(new Set(ticks).size, ticks.length, `${s.participantAddress} ran a tick twice`);
        if (orphans.includes(s.participantAddress)) continue;
        // Hand-overs at step boundaries lose no tick: every cadence tick from the first to the last ran.
        assert.deepEqual(
          ticks,
          ticks.map((_, k) => (ticks[0] ?? 0) + k * cadence),
          `${s.participantAddress} skipped a tick across a hand-over`,
        );
      }
    } finally {
      await store.close();
    }
  });
});
