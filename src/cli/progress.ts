import type { InvocationSummary } from "../runtime/index.js";

/** Running counts a run reports: invocations, tool actions by settlement, refusals by code. */
export class RunProgress {
  invocations = 0;
  readonly settlements = new Map<string, number>();
  readonly refusals = new Map<string, number>();
  readonly #tty: boolean;
  readonly #write: (text: string) => void;

  constructor(options: { readonly tty: boolean; readonly write: (text: string) => void }) {
    this.#tty = options.tty;
    this.#write = options.write;
  }

  /** Counts one closed invocation and redraws the line. */
  invocationClosed(summary: InvocationSummary): void {
    this.invocations += 1;
    for (const action of summary.toolActions) bump(this.settlements, action.settlement ?? "unsettled");
    if (this.#tty) this.#write(`\r${this.line()}`);
    else this.#write(`${summary.invocationId} ${summary.state} tools=${summary.toolActions.length}\n`);
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
