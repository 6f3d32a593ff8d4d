import type { InvocationSummary, PacedRunSummary, PacedStep, ParticipantShare } from "../../runtime/index.js";

/** This process's share, as `raes run` prints it: `owns 16/64 participants (4 processes)`. */
export function shareLine(share: ParticipantShare): string {
  const processes = `${share.processes} process${share.processes === 1 ? "" : "es"}`;
  return `owns ${share.owned}/${share.participants} participants (${processes})`;
}

/** Running counts a run reports: invocations, tool actions by settlement, refusals by code. */
export class RunProgress {
  invocations = 0;
  readonly settlements = new Map<string, number>();
  readonly refusals = new Map<string, number>();
  readonly #tty: boolean;
  readonly #write: (text: string) => void;
  #status = "";
  #share: ParticipantShare | undefined;
  #shared = false;

  constructor(options: { readonly tty: boolean; readonly write: (text: string) => void }) {
    this.#tty = options.tty;
    this.#write = options.write;
  }

  /** Counts one closed invocation and redraws the line. */
  invocationClosed(summary: InvocationSummary): void {
    this.invocations += 1;
    for (const action of summary.toolActions) bump(this.settlements, action.settlement ?? "unsettled");
    if (this.#tty) this.#write(`\r\x1b[K${this.#status}${this.line()}`);
    else
      this.#write(
        `${summary.invocationId} ${summary.state}${summary.timedOut ? " (timeout)" : ""} tools=${summary.toolActions.length}\n`,
      );
  }

  /** After each real-time step: on a TTY, the clock tick, each policy's next due tick and the lateness. */
  paced(step: PacedStep): void {
    const { positions } = step;
    if (!this.#tty) return;
    const clock = positions[0]?.clockTick ?? 0;
    const next = new Map<string, number | undefined>();
    for (const p of positions) {
      const name = p.policyAddress.split(".").at(-1) ?? p.policyAddress;
      const was = next.get(name);
      const tick = p.nextDueTick;
      next.set(name, was === undefined ? tick : tick === undefined ? was : Math.min(was, tick));
    }
    const due = [...next].map(([name, tick]) => `${name}@${tick ?? "done"}`).join(" ");
    const share =
      this.#share && this.#shared ? `${this.#share.owned}/${this.#share.participants} owned | ` : "";
    this.#status = `step ${step.index} | tick ${clock} | ${share}next ${due || "none"} | late ${step.latenessMs.toFixed(0)} ms | `;
    this.#write(`\r\x1b[K${this.#status}${this.line()}`);
  }

  /** This process's share changed: a line off a TTY, part of the status line on one. */
  share(share: ParticipantShare): void {
    // A lone process owning everything says so once, in the summary; a shared store shows every change.
    this.#shared ||= share.processes > 1 || share.owned !== share.participants;
    this.#share = share;
    if (!this.#tty && this.#shared) this.#write(`share: ${shareLine(share)}\n`);
  }

  /** The last share told, as a line for the summary. */
  shareLine(): string | undefined {
    return this.#share && shareLine(this.#share);
  }

  /** Counts one refusal. */
  refused(code: string): void {
    bump(this.refusals, code);
  }

  /** One line with every counter. */
  line(): string {
    return `invocations ${this.invocations} | tool actions ${format(this.settlements)} | refusals ${format(this.refusals)}`;
  }

  /** Ends the progress line. */
  finish(): void {
    if (this.#tty) this.#write("\n");
  }

  /** The counters as JSON. */
  toJSON(): Record<string, unknown> {
    return {
      invocations: this.invocations,
      tool_actions: Object.fromEntries(this.settlements),
      refusals: Object.fromEntries(this.refusals),
      ...(this.#share
        ? {
            share: {
              owned: this.#share.owned,
              participants: this.#share.participants,
              processes: this.#share.processes,
            },
          }
        : {}),
    };
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function format(map: Map<string, number>): string {
  if (map.size === 0) return "0";
  return [...map].map(([k, v]) => `${k}=${v}`).join(" ");
}

/** The pacing report of a real-time run, as JSON. */
export function pacingJson(paced: PacedRunSummary): Record<string, unknown> {
  return {
    tick_ms: paced.tickMs,
    source: paced.pacing,
    ...(paced.boundMs === undefined ? {} : { bound_ms: paced.boundMs }),
    pacing_lost_steps: paced.pacingLostSteps,
    steps: paced.steps,
    late_steps: paced.lateSteps,
    worst_lateness_ms: Math.round(paced.worstLatenessMs * 10) / 10,
    elapsed_ms: Math.round(paced.elapsedMs),
    ended: paced.ended,
  };
}

/** The pacing report of a real-time run, as one line. */
export function pacingLine(paced: PacedRunSummary): string {
  const source = paced.pacing === "clock" ? " (from the SDL clock)" : "";
  const lost =
    paced.pacingLostSteps > 0
      ? ` | pacing lost in ${paced.pacingLostSteps} steps (bound ${paced.boundMs} ms): degraded`
      : "";
  return `real time: ${paced.steps} steps at ${paced.tickMs} ms${source} in ${(paced.elapsedMs / 1000).toFixed(2)} s (${paced.ended}) | late steps ${paced.lateSteps}, worst lateness ${paced.worstLatenessMs.toFixed(0)} ms${lost}`;
}
