import type {
  ParticipantActionRequest,
  ParticipantActionResult,
  ParticipantSnapshot,
} from "../../src/index.js";
import { RecordingRuntime } from "../runtime/harnesses.js";

/** A harness whose next invocation waits, once called, until the test releases it. */
export class HeldRuntime extends RecordingRuntime {
  holding = false;
  #release: (() => void) | undefined;
  #called: (() => void) | undefined;
  /** Settles once the held invocation has reached the harness. */
  called = new Promise<void>((resolve) => {
    this.#called = resolve;
  });

  release(): void {
    this.#release?.();
  }

  override async modelAction(
    request: ParticipantActionRequest,
    snapshot: ParticipantSnapshot,
    context: { episodeId: string },
  ): Promise<ParticipantActionResult> {
    if (this.holding) {
      this.holding = false;
      await new Promise<void>((resolve) => {
        this.#release = resolve;
        this.#called?.();
      });
    }
    return super.modelAction(request, snapshot, context);
  }
}
