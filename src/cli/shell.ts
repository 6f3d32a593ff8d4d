const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Quotes one word for a POSIX shell, so a printed command runs as printed. */
export function shellWord(word: string): string {
  return SAFE.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `raes resolve` commands an operator can run for an indeterminate action: one per decision. */
export function resolveCommands(id: string, storeUrl: string): { confirmed: string; absent: string } {
  const command = (effect: string) =>
    ["raes", "resolve", id, "--effect", effect, "--store", storeUrl].map(shellWord).join(" ");
  return { confirmed: command("confirmed"), absent: command("absent") };
}
