/**
 * The `code` an error carries, when it is a string: RAES's and raes-ts's coded errors, and Node's
 * system errors (`ENOENT`) and drivers' (SQLSTATE) alike. The grammar of codes is in
 * `docs/reference/codes.md`.
 */
export function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}
