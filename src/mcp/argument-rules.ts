import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";

/**
 * A compiled `arguments:` rule of a map entry: undefined when the arguments match, else the
 * validator's message. The message names where and which rule failed, never the value there.
 */
export type ArgumentRule = (args: Record<string, unknown> | undefined) => string | undefined;

/** Why a schema cannot be a rule, and where inside the schema (a JSON pointer; "" is its root). */
export interface ArgumentSchemaProblem {
  readonly pointer: string;
  readonly message: string;
}

/** The longest validator message the agent gets; ajv's are short, a pointer may be long. */
const MAX_MESSAGE = 300;

/**
 * One validator per map load (draft 2020-12). Schemas are not registered by their `$id`, so two
 * tools may share one; unknown keywords and formats are errors (strict), not silently ignored; it
 * stops at the first mismatch (bounded work per call); it never fetches a remote `$ref`.
 */
export function argumentCompiler(): (schema: unknown) => ArgumentRule | ArgumentSchemaProblem {
  const ajv = new Ajv2020({
    addUsedSchema: false,
    allErrors: false,
    logger: false,
    strictTypes: false,
    strictTuples: false,
  });
  return (schema) => {
    if (
      typeof schema !== "boolean" &&
      (typeof schema !== "object" || schema === null || Array.isArray(schema))
    )
      return { pointer: "", message: "'arguments' must be a JSON Schema (a mapping, or true or false)" };
    if (!ajv.validateSchema(schema as object | boolean)) {
      const [first] = ajv.errors ?? [];
      return {
        pointer: first?.instancePath ?? "",
        message: `'arguments' is not a valid JSON Schema (draft 2020-12): ${schemaError(first)}`,
      };
    }
    try {
      const validate = ajv.compile(schema as object | boolean);
      return (args) => (validate(args ?? {}) ? undefined : mismatch(validate.errors?.[0]));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { pointer: "", message: `'arguments' cannot be compiled: ${message.slice(0, MAX_MESSAGE)}` };
    }
  };
}

function schemaError(error: ErrorObject | undefined): string {
  if (!error) return "rejected by the meta-schema";
  return `${error.instancePath || "(root)"} ${error.message ?? error.keyword}`.slice(0, MAX_MESSAGE);
}

/**
 * Where the arguments fail and which keyword: ajv's instance path, keyword and message. Its messages
 * quote the schema (an allowed value, a pattern, a limit), never the arguments' values; `params`,
 * which can hold an argument's name or value, is left out.
 */
function mismatch(error: ErrorObject | undefined): string {
  if (!error) return "the arguments do not match the tool's argument rule";
  const at = error.instancePath === "" ? "the arguments" : `argument ${error.instancePath}`;
  return `${at} ${error.message ?? "do not match"} (${error.keyword})`.slice(0, MAX_MESSAGE);
}
