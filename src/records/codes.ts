/**
 * The `code` an error carries, when it is a string: RAES's and raes-ts's coded errors, and Node's
 * system errors (`ENOENT`) and drivers' (SQLSTATE) alike. The grammar of codes is in
 * `docs/reference/codes.md`.
 */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * Whether `error` is Node's refusal to load the package `name` because it is not installed: an
 * `ERR_MODULE_NOT_FOUND` naming that package itself, not a module the package goes on to import.
 * The optional packages (`pg`, the OTLP exporter; `docs/guide/stores.md`, `docs/guide/tracing.md`) are
 * imported when first needed, and this tells a missing one from any other failure.
 *
 * @example
 * await import("pg").catch((error: unknown) => {
 *   if (isPackageMissing(error, "pg")) throw new Error("install pg to use a postgres:// store");
 *   throw error;
 * });
 */
export function isPackageMissing(error: unknown, name: string): boolean {
  return (
    codeOf(error) === "ERR_MODULE_NOT_FOUND" &&
    error instanceof Error &&
    error.message.startsWith(`Cannot find package '${name}' `)
  );
}
