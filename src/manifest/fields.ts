import { ManifestDiagnosticCode as Code } from "./codes.js";
import { type DiagnosticSink, pointer } from "./diagnostics.js";

/** A JSON object as parsed. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** Whether an absent field is an error. */
export type Presence = "required" | "optional";

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function describeKey(key: string): string {
  return key === "" ? "the document" : `'${key}'`;
}

/** Returns value as an object, or records a shape error. */
export function asObject(
  sink: DiagnosticSink,
  value: unknown,
  path: string,
  key = "",
): JsonObject | undefined {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as JsonObject;
  sink.shape(Code.wrong_type, path, `${describeKey(key)} must be an object, not ${jsonType(value)}`);
  return undefined;
}

/** Records every key of object that is not in known. */
export function reportUnknownKeys(
  sink: DiagnosticSink,
  object: JsonObject,
  path: string,
  known: ReadonlySet<string>,
): void {
  for (const key of Object.keys(object)) {
    if (!known.has(key)) {
      sink.error(Code.unknown_field, `${path}${pointer(key)}`, `'${key}' is not a field of this object`);
    }
  }
}

/** Reads object[key]; a required absent field is a shape error, and `null` counts as absent when nullable. */
function readPresent(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  presence: Presence,
  nullable = false,
): { value: unknown; path: string } | undefined {
  const fieldPath = `${path}${pointer(key)}`;
  const value = Object.hasOwn(object, key) ? object[key] : undefined;
  if (value === undefined || (nullable && value === null)) {
    if (presence === "required") sink.shape(Code.missing_field, fieldPath, `'${key}' is required`);
    return undefined;
  }
  return { value, path: fieldPath };
}

/** Reads a non-empty string field. */
export function readString(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  presence: Presence,
): string | undefined {
  const field = readPresent(sink, object, key, path, presence);
  if (field === undefined) return undefined;
  if (typeof field.value !== "string") {
    sink.shape(Code.wrong_type, field.path, `'${key}' must be a string, not ${jsonType(field.value)}`);
    return undefined;
  }
  if (field.value.length === 0) sink.error(Code.invalid_value, field.path, `'${key}' must not be empty`);
  return field.value;
}

/** Reads a boolean field. */
export function readBoolean(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  presence: Presence,
): boolean | undefined {
  const field = readPresent(sink, object, key, path, presence);
  if (field === undefined) return undefined;
  if (typeof field.value === "boolean") return field.value;
  sink.shape(Code.wrong_type, field.path, `'${key}' must be a boolean, not ${jsonType(field.value)}`);
  return undefined;
}

/** Reads a number field; whether it is a valid limit is for the rules to say. */
export function readNumber(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  presence: Presence,
  nullable = false,
): number | undefined {
  const field = readPresent(sink, object, key, path, presence, nullable);
  if (field === undefined) return undefined;
  if (typeof field.value === "number") return field.value;
  sink.shape(Code.wrong_type, field.path, `'${key}' must be a number, not ${jsonType(field.value)}`);
  return undefined;
}

/** Reads a list of non-empty strings; wrong elements are reported and left out. */
export function readStringList(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  presence: Presence,
): string[] | undefined {
  const field = readPresent(sink, object, key, path, presence);
  if (field === undefined) return undefined;
  if (!Array.isArray(field.value)) {
    sink.shape(
      Code.wrong_type,
      field.path,
      `'${key}' must be an array of strings, not ${jsonType(field.value)}`,
    );
    return undefined;
  }
  const values: string[] = [];
  field.value.forEach((item: unknown, index) => {
    const itemPath = `${field.path}${pointer(index)}`;
    if (typeof item !== "string") {
      sink.shape(Code.wrong_type, itemPath, `'${key}' items must be strings, not ${jsonType(item)}`);
      return;
    }
    if (item.length === 0) sink.error(Code.invalid_value, itemPath, `'${key}' items must not be empty`);
    values.push(item);
  });
  return values;
}

/** Reads a list of objects, parsing each element that is an object; the result keeps element indexes. */
export function readObjectList<T>(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  parseItem: (item: JsonObject, itemPath: string) => T,
): { readonly index: number; readonly item: T }[] {
  const field = readPresent(sink, object, key, path, "optional");
  if (field === undefined) return [];
  if (!Array.isArray(field.value)) {
    sink.shape(Code.wrong_type, field.path, `'${key}' must be an array, not ${jsonType(field.value)}`);
    return [];
  }
  const items: { index: number; item: T }[] = [];
  field.value.forEach((element: unknown, index) => {
    const itemPath = `${field.path}${pointer(index)}`;
    const itemObject = asObject(sink, element, itemPath, `${key}[${index}]`);
    if (itemObject !== undefined) items.push({ index, item: parseItem(itemObject, itemPath) });
  });
  return items;
}

/** Reads a string field whose value must be one of a closed set. */
export function readEnum<T extends string>(
  sink: DiagnosticSink,
  object: JsonObject,
  key: string,
  path: string,
  allowed: readonly T[],
): T | undefined {
  const value = readString(sink, object, key, path, "required");
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  sink.shape(
    Code.invalid_value,
    `${path}${pointer(key)}`,
    `'${key}' is '${value}'; expected one of ${allowed.join(", ")}`,
  );
  return undefined;
}

/** Records every string in values that is not in allowed. */
export function reportValuesOutside(
  sink: DiagnosticSink,
  values: readonly string[] | undefined,
  path: string,
  allowed: readonly string[],
  what: string,
): void {
  values?.forEach((value, index) => {
    if (!allowed.includes(value)) {
      sink.error(
        Code.invalid_value,
        `${path}${pointer(index)}`,
        `${what} '${value}' is not one of ${allowed.join(", ")}`,
      );
    }
  });
}
