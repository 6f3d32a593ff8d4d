import { DiagnosticCode } from "../codes.js";
import type { Finding } from "../diagnostics.js";
import { joinPointer } from "../diagnostics.js";
import type { DecodeContext, Shape } from "./shape.js";
import { isMapping } from "./shape.js";

/** A field that must be authored. */
export interface RequiredField<T> {
  readonly shape: Shape<T>;
  readonly mode: "required";
}
/** A field that takes `value` when not authored. */
export interface DefaultField<T> {
  readonly shape: Shape<T>;
  readonly mode: "default";
  readonly value: T;
}
/** A field that may be absent. */
export interface OptionalField<T> {
  readonly shape: Shape<T>;
  readonly mode: "optional";
}
type AnyField = RequiredField<unknown> | DefaultField<unknown> | OptionalField<unknown>;
type FieldValue<F> = F extends { readonly shape: Shape<infer T> } ? T : never;
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The decoded type of a struct with these fields. */
export type StructOf<F extends Record<string, AnyField>> = Simplify<
  { readonly [K in keyof F as F[K] extends OptionalField<unknown> ? never : K]: FieldValue<F[K]> } & {
    readonly [K in keyof F as F[K] extends OptionalField<unknown> ? K : never]?: FieldValue<F[K]>;
  }
>;

/** RAES's canonical spelling of a structural key: lower case, `_` for `-`. */
export function canonicalKey(key: string): string {
  return key.toLowerCase().replaceAll("-", "_");
}

/** Reports a structural key that is not canonically spelled (RAES rejects it before the model stage). */
export function reportNoncanonical(key: string, at: string, ctx: DecodeContext): boolean {
  const canonical = canonicalKey(key);
  if (canonical === key) return false;
  ctx.report({
    code: DiagnosticCode.noncanonicalField,
    message: `structural field '${key}' must use canonical spelling '${canonical}'`,
    path: at,
    anchor: "key",
  });
  return true;
}

/** Marks a field as required. */
export function required<T>(shape: Shape<T>): RequiredField<T> {
  return { shape, mode: "required" };
}

/** Marks a field as defaulted. */
export function withDefault<T>(shape: Shape<T>, value: T): DefaultField<T> {
  return { shape, mode: "default", value };
}

/** Marks a field as optional. */
export function optional<T>(shape: Shape<T>): OptionalField<T> {
  return { shape, mode: "optional" };
}

/** A cross-field rule, run on a struct whose fields decoded; it reports through `fail`. */
export type StructRule<T> = (value: T, fail: (message: string, ...path: (string | number)[]) => void) => void;

/** A closed mapping: unknown keys, missing required fields and bad values are all reported. */
export function struct<F extends Record<string, AnyField>>(
  fields: F,
  rules: readonly StructRule<StructOf<F>>[] = [],
): Shape<StructOf<F>> {
  const names = Object.keys(fields);
  return {
    expected: "a mapping",
    decode(raw, pointer, ctx) {
      if (!isMapping(raw)) {
        ctx.report({
          code: DiagnosticCode.modelInvalid,
          message: `expected a mapping`,
          path: pointer,
          typeMismatch: true,
        });
        return undefined;
      }
      for (const key of Object.keys(raw)) {
        if (!Object.hasOwn(fields, key)) {
          if (reportNoncanonical(key, joinPointer(pointer, key), ctx)) continue;
          ctx.report({
            code: DiagnosticCode.modelInvalid,
            message:
              names.length <= 16
                ? `unknown key '${key}' (allowed: ${names.join(", ")})`
                : `unknown key '${key}'`,
            path: joinPointer(pointer, key),
            anchor: "key",
          });
        }
      }
      const out: Record<string, unknown> = {};
      let complete = true;
      for (const name of names) {
        const field = fields[name] as AnyField;
        const at = joinPointer(pointer, name);
        if (!Object.hasOwn(raw, name)) {
          if (field.mode === "required") {
            ctx.report({
              code: DiagnosticCode.modelInvalid,
              message: `missing required key '${name}'`,
              path: at,
            });
            complete = false;
          } else if (field.mode === "default") {
            out[name] = field.value;
          }
          continue;
        }
        const decoded = field.shape.decode(raw[name], at, ctx);
        if (decoded !== undefined) out[name] = decoded;
        else if (field.mode === "required") complete = false;
        else if (field.mode === "default") out[name] = field.value;
      }
      if (!complete) return undefined;
      const value = out as StructOf<F>;
      for (const rule of rules) {
        rule(value, (message, ...path) => {
          const finding: Finding = {
            code: DiagnosticCode.modelInvalid,
            message,
            path: joinPointer(pointer, ...path),
          };
          ctx.report(finding);
        });
      }
      return value;
    },
  };
}

/** Picks a struct shape by the value of a discriminating key, with a default when the key is absent. */
export function variant<T>(
  key: string,
  fallback: string,
  variants: Readonly<Record<string, Shape<T>>>,
  unknownCode: DiagnosticCode,
): Shape<T> {
  return {
    expected: "a mapping",
    decode(raw, pointer, ctx: DecodeContext) {
      if (!isMapping(raw)) {
        ctx.report({
          code: DiagnosticCode.modelInvalid,
          message: `expected a mapping`,
          path: pointer,
          typeMismatch: true,
        });
        return undefined;
      }
      const tag = raw[key] ?? fallback;
      const shape = typeof tag === "string" && Object.hasOwn(variants, tag) ? variants[tag] : undefined;
      if (shape === undefined) {
        ctx.report({
          code: unknownCode,
          message: `${key} '${String(tag)}' is not one of ${Object.keys(variants).join(", ")}`,
          path: joinPointer(pointer, key),
        });
        return undefined;
      }
      // RAES's policy is an untagged union: when the matching member fails, every other member fails too,
      // so it always adds a model error beside the member's own (identifier) errors.
      const findings: Finding[] = [];
      const value = shape.decode(raw, pointer, { report: (finding) => findings.push(finding) });
      for (const finding of findings) ctx.report(finding);
      if (findings.some((finding) => (finding.severity ?? "error") === "error")) {
        ctx.report({
          code: DiagnosticCode.modelInvalid,
          message: `no ${key} variant accepts this value`,
          path: pointer,
        });
      }
      return value;
    },
  };
}
