import { foldClockCte } from "./clock-writes.js";
import { FENCE_HOLDS, FENCED, NO_FENCE, UNFENCED } from "./leases.js";
import {
  CLOCK_COLUMNS,
  type Column,
  INVOCATION_COLUMNS,
  SCHEDULER_COLUMNS,
  TOOL_ACTION_COLUMNS,
  type ToolActionChange,
} from "./rows.js";
import { assignments, insert, names, upsert } from "./statements.js";

// The text of the PostgreSQL store's fenced write statements, in their fenced and unfenced forms.
// Every write is ONE statement (one round trip, one implicit transaction): data-modifying CTEs
// guarded by the fence CTE, reporting whether the fence held and whether the write happened.
const RESULT = "SELECT EXISTS (SELECT 1 FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written";
const SCHEDULER_KEY = "participant_address, policy_address";
// Parameter numbers after the fence's $1, $2: an invocation's columns, then its scheduler's, then the rest.
const SCHEDULER_FIRST = 3 + INVOCATION_COLUMNS.length;

const SAVE_SCHEDULER = (fence: string) => `WITH ${fence},
  written AS (${upsert("schedulers", SCHEDULER_COLUMNS, 3, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM fence)")})
  ${RESULT}`;

const OPEN_INVOCATION = (fence: string) => `WITH ${fence},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, "EXISTS (SELECT 1 FROM fence)")} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  ${RESULT}`;

// The open carrying a clock change: the invocation is inserted only where the clock was written, and
// the clock row as the statement found it comes back (all NULL when there is none).
const CLOCK_FIRST = SCHEDULER_FIRST + SCHEDULER_COLUMNS.length;
const OPEN_INVOCATION_CLOCKED = (fence: string) => `WITH ${fence},
  ${foldClockCte(CLOCK_FIRST, "EXISTS (SELECT 1 FROM fence)")},
  written AS (${insert("invocations", INVOCATION_COLUMNS, 3, "EXISTS (SELECT 1 FROM clocked)")} RETURNING 1),
  scheduled AS (${upsert("schedulers", SCHEDULER_COLUMNS, SCHEDULER_FIRST, SCHEDULER_KEY, "EXISTS (SELECT 1 FROM written)")})
  SELECT EXISTS (SELECT 1 FROM fence) AS fenced, EXISTS (SELECT 1 FROM written) AS written,
    ${names(CLOCK_COLUMNS.map(([name, type]) => [`stored.${name}`, type]))}
  FROM (SELECT 1) AS one LEFT JOIN clocks AS stored ON stored.clock_address = $${CLOCK_FIRST}::text`;

// The claims and settlements, the hot path, are plain statements guarded by the fence's condition:
// a data-modifying CTE with its report row cost ~100 µs more per statement (measured).
const INSERT_TOOL_ACTION = (guard: string) => insert("tool_actions", TOOL_ACTION_COLUMNS, 3, guard);

// A tool action's later step writes its id ($3), the columns it sets, then the expected phase.
const UPDATE_TOOL_ACTION = (set: readonly Column[]) => (guard: string) => {
  const columns: readonly Column[] = [["id", "text"], ...set];
  return `UPDATE tool_actions SET ${assignments(columns, 3)}
  WHERE id = $3::text AND phase = $${3 + columns.length}::text AND ${guard}`;
};

/** The update statement of each set of columns a later step writes, named in the order first seen. */
const UPDATES = new Map<string, Statement>();

export function updateStatement(change: ToolActionChange): Statement {
  let found = UPDATES.get(change.key);
  if (found === undefined) {
    found = guarded(`raes_update_tool_action_${UPDATES.size + 1}`, UPDATE_TOOL_ACTION(change.columns));
    UPDATES.set(change.key, found);
  }
  return found;
}

/** One statement in its fenced and unfenced forms, each prepared once per connection. */
export interface Statement {
  readonly name: string;
  readonly fenced: string;
  readonly unfenced: string;
}

function statement(name: string, text: (fence: string) => string): Statement {
  return { name, fenced: text(FENCED), unfenced: text(UNFENCED) };
}

/** A plain statement in its fenced and unfenced forms: it reports only how many rows it wrote. */
function guarded(name: string, text: (guard: string) => string): Statement {
  return { name, fenced: text(FENCE_HOLDS), unfenced: text(NO_FENCE) };
}

export const STATEMENTS = {
  saveScheduler: statement("raes_save_scheduler", SAVE_SCHEDULER),
  openInvocation: statement("raes_open_invocation", OPEN_INVOCATION),
  openInvocationClocked: statement("raes_open_invocation_clocked", OPEN_INVOCATION_CLOCKED),
  insertToolAction: guarded("raes_insert_tool_action", INSERT_TOOL_ACTION),
};
