/** Codes of errors `compileScenario` raises. */
export const CompileErrorCode = {
  /** The scenario has errors (its semantic checks fail, or it is not a decoded scenario): nothing is compiled. */
  scenario_invalid: "compiler.scenario-invalid",
  /** A v3 resource-budget owner resolves to no address (e.g. a qualified `agents.<name>` participant owner): RAES's compiler refuses it too. */
  resource_owner_unresolved: "compiler.resource-owner-unresolved",
} as const;
/** A compile error code. */
export type CompileErrorCode = (typeof CompileErrorCode)[keyof typeof CompileErrorCode];

/** An error with a fixed code from `CompileErrorCode`; `details` lists each finding as `code path: message`. */
export class CompileError extends Error {
  readonly code: CompileErrorCode;
  readonly details: readonly string[];

  constructor(code: CompileErrorCode, message: string, details: readonly string[] = []) {
    super(details.length > 0 ? `${message}\n  ${details.join("\n  ")}` : message);
    this.name = "CompileError";
    this.code = code;
    this.details = details;
  }
}
