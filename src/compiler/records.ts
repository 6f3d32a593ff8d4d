/** Orders strings by UTF-16 code units, independent of locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Builds a record keyed by address, with keys in sorted order. */
export function byAddress<T extends { readonly address: string }>(items: Iterable<T>): Record<string, T> {
  const sorted = [...items].sort((a, b) => compareText(a.address, b.address));
  return Object.fromEntries(sorted.map((item) => [item.address, item]));
}

/** Resolves refs to declared names, dropping the unresolved ones and repeats, in first-seen order. */
export function resolveNames(
  refs: readonly string[],
  resolve: (ref: string) => string | undefined,
): string[] {
  const out = new Set<string>();
  for (const ref of refs) {
    const name = resolve(ref);
    if (name !== undefined) out.add(name);
  }
  return [...out];
}
