import { ManifestDiagnosticCode as Code } from "./codes.js";
import { BACKEND_CONTRACT_IDS, TIME_CONTRACTS } from "./contracts.js";
import { type DiagnosticSink, listCapped, pointer } from "./diagnostics.js";
import { asObject, type JsonObject, reportUnknownKeys } from "./fields.js";
import type { TimeCapabilities } from "./types.js";

/**
 * RAES's vocabularies of the `time` capability lists (RAES's `TimeCapabilitiesModel`), and whether a
 * list must name at least one term. Only these terms are admitted; a list names each term once.
 */
const TIME_TERMS: Readonly<
  Record<string, { readonly terms: ReadonlySet<string>; readonly required: boolean }>
> = {
  supported_domain_kinds: {
    terms: new Set(["wall_clock", "monotonic", "simulated", "logical", "external"]),
    required: true,
  },
  supported_authority_kinds: { terms: new Set(["runtime", "backend", "system", "external"]), required: true },
  supported_advancement_modes: {
    terms: new Set(["real_time", "dilated", "stepped", "event_driven", "externally_paced"]),
    required: true,
  },
  supported_synchronization_modes: {
    terms: new Set(["none", "authority", "barrier", "conservative"]),
    required: true,
  },
  supported_mapping_kinds: { terms: new Set(["identity", "affine_rational"]), required: false },
  supported_constraint_kinds: {
    terms: new Set(["precedence", "duration", "window", "deadline", "cadence"]),
    required: false,
  },
  supported_reset_behaviors: {
    terms: new Set(["unsupported", "new_segment_zero", "new_segment_preserve_value"]),
    required: true,
  },
  supported_replay_behaviors: {
    terms: new Set(["unsupported", "restart_from_anchor", "restore_recorded_advances"]),
    required: true,
  },
};

const TIME_FLAGS = [
  "supports_pause",
  "supports_jump",
  "supports_exact_rational_mappings",
  "supports_append_only_history",
  "supports_run_provenance",
  "supports_coordinated_participant_reset",
] as const;

/** RAES's `time` capability keys. */
const TIME_KEYS = new Set([
  "name",
  "supported_contract_versions",
  ...Object.keys(TIME_TERMS),
  "max_time_domains",
  "max_clocks",
  ...TIME_FLAGS,
  "constraints",
]);

// RAES's manifest model reads booleans and counts leniently (pydantic's lax mode): these are the values
// it takes for a boolean, and a count may be a whole number in a number or a string.
const TRUE_WORDS = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE_WORDS = new Set(["0", "off", "f", "false", "n", "no"]);

/** A boolean as RAES's model reads one, or undefined when it refuses the value. */
function laxBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value !== "string") return undefined;
  const word = value.toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

/** A whole number as RAES's model reads one (`int`), or undefined when it refuses the value. */
function laxInteger(value: unknown): number | undefined {
  if (typeof value === "boolean") return value ? 1 : 0;
  const n = typeof value === "string" && /^\s*[+-]?[0-9]+\s*$/.test(value) ? Number(value) : value;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Checks the manifest's `time` section as RAES's `TimeCapabilitiesModel` does, over what the section
 * declares (a key left out is RAES's default, as raes-ts's own clock provides it): each list a list of
 * non-empty strings from its vocabulary, named once, and the six required lists not empty; mapping
 * kinds only with exact rational mappings; counts whole and at least 1; `constraints` strings by name;
 * its own `supported_contract_versions` exactly the time contract family. Every broken rule is
 * `manifest.invalid-value`, as RAES refuses the manifest. Only `supports_coordinated_participant_reset`
 * is interpreted.
 */
export function parseTime(sink: DiagnosticSink, root: JsonObject): { readonly time?: TimeCapabilities } {
  if (!Object.hasOwn(root, "time") || root.time === null) return {};
  const at = pointer("time");
  const time = asObject(sink, root.time, at, "time");
  if (time === undefined) return {};
  reportUnknownKeys(sink, time, at, TIME_KEYS);
  const invalid = (key: string, message: string) =>
    sink.error(Code.invalid_value, `${at}${pointer(key)}`, message);
  if (Object.hasOwn(time, "name") && (typeof time.name !== "string" || time.name.trim() === ""))
    invalid("name", "time name must be a non-empty string");
  for (const [key, { terms, required }] of Object.entries(TIME_TERMS)) {
    if (!Object.hasOwn(time, key)) continue;
    const problem = listProblem(time[key], terms, required);
    if (problem) invalid(key, `time ${key} ${problem}`);
  }
  if (Object.hasOwn(time, "supported_contract_versions")) {
    const ids = time.supported_contract_versions;
    const family =
      Array.isArray(ids) &&
      ids.every((id) => typeof id === "string" && BACKEND_CONTRACT_IDS.has(id)) &&
      new Set(ids).size === ids.length &&
      ids.length === TIME_CONTRACTS.length &&
      TIME_CONTRACTS.every((id) => ids.includes(id));
    if (!family)
      invalid(
        "supported_contract_versions",
        `time capabilities require the complete time contract family (${TIME_CONTRACTS.join(", ")})`,
      );
  }
  for (const key of ["max_time_domains", "max_clocks"]) {
    if (!Object.hasOwn(time, key) || time[key] === null) continue;
    const n = laxInteger(time[key]);
    if (n === undefined || n < 1) invalid(key, `time ${key} must be a whole number of at least 1 when given`);
  }
  const flags: Partial<Record<(typeof TIME_FLAGS)[number], boolean>> = {};
  for (const key of TIME_FLAGS) {
    if (!Object.hasOwn(time, key)) continue;
    const flag = laxBoolean(time[key]);
    if (flag === undefined) invalid(key, `time ${key} must be a boolean`);
    else flags[key] = flag;
  }
  if (Object.hasOwn(time, "constraints")) {
    const c = time.constraints;
    const strings =
      c !== null &&
      typeof c === "object" &&
      !Array.isArray(c) &&
      Object.values(c).every((v) => typeof v === "string");
    if (!strings) invalid("constraints", "time constraints must map names to strings");
  }
  const mappings = time.supported_mapping_kinds;
  if (Array.isArray(mappings) && mappings.length > 0 && flags.supports_exact_rational_mappings !== true)
    invalid("supported_mapping_kinds", "time mapping support requires exact rational mappings");
  return {
    time: { supportsCoordinatedParticipantReset: flags.supports_coordinated_participant_reset === true },
  };
}

/** What is wrong with one `time` capability list, or undefined. */
function listProblem(value: unknown, terms: ReadonlySet<string>, required: boolean): string | undefined {
  if (!Array.isArray(value)) return "must be a list of strings";
  if (value.some((v) => typeof v !== "string" || v.length === 0)) return "must list non-empty strings";
  if (required && value.length === 0) return "must not be empty";
  const listed = value as string[];
  // Set-based and capped: a 1 MB manifest can list a hundred thousand values.
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const v of listed) {
    if (seen.has(v)) repeated.add(v);
    seen.add(v);
  }
  const twice = [...repeated].sort();
  if (twice.length > 0) return `must not contain duplicate values: ${listCapped(twice)}`;
  const unknown = [...seen].filter((v) => !terms.has(v)).sort();
  if (unknown.length > 0) return `contains unknown values: ${listCapped(unknown)}`;
  return undefined;
}
