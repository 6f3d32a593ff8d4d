import { setImmediate as nextTurn } from "node:timers/promises";
import type { OperationCursor, OperatorDecision } from "../records/index.js";
import type { StoreReader } from "../store/index.js";

/** The first resolution whose operation record disagrees with its chained `resolve` decision. */
export interface ResolutionFailure {
  /** The tool action's id. */
  readonly id: string;
  /** One sentence for a person. */
  readonly detail: string;
}

/** The outcome of comparing each resolved operation with its chained decision. */
export interface ResolutionReport {
  readonly ok: boolean;
  /** Resolutions checked against their decision. */
  readonly resolutions: number;
  readonly failure?: ResolutionFailure;
}

/** Operations and decisions read per page. */
const PAGE = 1000;

/**
 * Compares every resolution an operation record holds with the operator chain's `resolve` decision
 * about it (docs/evidence-format.md, "What the chains cover"): the operator, note and time must be the
 * decision's, and the resolution its `resolution` (recorded from schema step 21). A resolution that
 * names an operator without a decision, or a decision whose operation holds no such resolution, fails.
 * Every tool action is read, not only indeterminate ones: a resolution on an operation that is not
 * indeterminate was never recorded by raes-ts (it resolves only indeterminate ones) and fails, with or
 * without an operator. Resolutions recorded before operators were named (no operator) on an
 * indeterminate operation have no decision and are skipped.
 * Memory holds the `resolve` decisions, one per indeterminate tool action resolved.
 */
export async function verifyResolutions(store: StoreReader): Promise<ResolutionReport> {
  const decided = new Map<string, OperatorDecision>();
  for (let after = 0; ; ) {
    const page = await store.readDecisionPage(after, PAGE);
    for (const d of page) if (d.kind === "resolve") decided.set(d.subject, d);
    if (page.length < PAGE) break;
    // Each page answered at once (SQLite): a turn between them lets a serving process answer meanwhile.
    await nextTurn();
    after = page[page.length - 1]?.sequence ?? after + PAGE;
  }
  let resolutions = 0;
  const fail = (id: string, detail: string): ResolutionReport => ({
    ok: false,
    resolutions,
    failure: { id, detail },
  });
  let before: OperationCursor | undefined;
  for (;;) {
    const page = await store.listOperations({
      kind: "tool_action",
      limit: PAGE,
      ...(before ? { before } : {}),
    });
    for (const operation of page) {
      const r = operation.resolution;
      const d = decided.get(operation.id);
      if (r !== undefined && operation.state !== "indeterminate")
        return fail(
          operation.id,
          `it is ${operation.state}, not indeterminate, yet its record holds a resolution${
            d === undefined ? "" : ` (decision ${d.sequence} resolved it)`
          }`,
        );
      if (r === undefined || r.operator === undefined) {
        if (d !== undefined)
          return fail(
            operation.id,
            `decision ${d.sequence} resolved it, its operation record holds no such resolution`,
          );
        continue;
      }
      resolutions += 1;
      if (d === undefined)
        return fail(
          operation.id,
          `its record names ${r.operator} as resolver, no resolve decision in the operator chain does`,
        );
      const differs = [
        d.operator !== r.operator ? "operator" : "",
        d.note !== r.note ? "note" : "",
        d.decided_at !== r.resolvedAt ? "time" : "",
        d.resolution !== undefined && d.resolution !== r.resolution ? "resolution" : "",
      ].filter(Boolean);
      if (differs.length > 0)
        return fail(
          operation.id,
          `its record's ${differs.join(", ")} ${differs.length === 1 ? "differs" : "differ"} from decision ${d.sequence}`,
        );
      decided.delete(operation.id);
    }
    const last = page[page.length - 1];
    if (page.length < PAGE || last === undefined) break;
    before = { createdAt: last.createdAt, id: last.id };
    await nextTurn();
  }
  for (const [id, d] of decided)
    return fail(id, `decision ${d.sequence} resolved it, no operation with this id holds its resolution`);
  return { ok: true, resolutions };
}
