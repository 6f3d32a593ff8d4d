import type { InvocationToolActionPort } from "../../../src/index.js";
import { codeOf, outcomeFor, requestFor } from "../../helpers/tool-requests.js";

/**
 * Calls that are not closed, plain shapes. The in-process port refuses each (rule 0, or an invalid
 * outcome). They are built on the side that calls, so over a bridge the bridge itself must carry them.
 */
function malformedCalls(
  port: InvocationToolActionPort,
  admittedId: string,
): Array<[string, () => Promise<unknown>]> {
  const valid = requestFor(port, "shape");
  return [
    [
      "admit: tool arguments as a callback",
      () => port.admit({ ...valid, arguments: () => "secret" } as never),
    ],
    [
      "admit: an unknown field set to undefined",
      () => port.admit({ ...valid, arguments: undefined } as never),
    ],
    ["admit: a class instance", () => port.admit(Object.assign(new (class Req {})(), valid) as never)],
    [
      "complete: an outcome carrying a callback",
      () => port.complete(admittedId, { ...outcomeFor(port, admittedId), result: () => "secret" } as never),
    ],
  ];
}

/** Each malformed call's answer code, or the exception it threw. */
export async function malformedAnswers(
  port: InvocationToolActionPort,
  admittedId: string,
): Promise<string[]> {
  const answers: string[] = [];
  for (const [label, call] of malformedCalls(port, admittedId)) {
    try {
      answers.push(`${label} -> ${codeOf((await call()) as never)}`);
    } catch (error) {
      answers.push(`${label} -> throws ${(error as Error).name}`);
    }
  }
  return answers;
}

/**
 * How many MessagePorts keep this thread's event loop alive before and after a malformed admit over
 * `port`; a bridge that is idle again must not keep an extra one (the thread could never exit).
 */
export async function refsAroundMalformedAdmit(port: InvocationToolActionPort): Promise<[number, number]> {
  const count = () => process.getActiveResourcesInfo().filter((r) => r === "MessagePort").length;
  const before = count();
  try {
    await port.admit({ ...requestFor(port, "leak"), arguments: () => "secret" } as never);
  } catch {
    // The answer is checked elsewhere; here only what stays alive afterwards matters.
  }
  return [before, count()];
}
