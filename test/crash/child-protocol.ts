/**
 * The line protocol of a crash-test child, as `sigkillAtAnnouncedPoint` reads it: ARMED once the
 * runtime is open, `POINT <where>` at the kill point (then it blocks until SIGKILL), UNEXPECTED-END
 * if the run ends without reaching it, FAILED with the error on one line.
 */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** Announces the kill point and blocks until the parent kills the process with SIGKILL. */
export function holdAtPoint(where: string): Promise<never> {
  say(`POINT ${where}`);
  setInterval(() => undefined, 1 << 30);
  return new Promise<never>(() => undefined);
}

/** Announces that the run ended before its kill point, and exits 3. */
export function unexpectedEnd(): never {
  say("UNEXPECTED-END");
  process.exit(3);
}

/** Announces the error on one line, and exits 2. */
export function failed(error: unknown): never {
  say(`FAILED ${error instanceof Error ? error.stack : String(error)}`.replaceAll("\n", " | "));
  process.exit(2);
}
