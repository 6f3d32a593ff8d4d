import { shellWord } from "./html-timeline-escape.js";

/** The `raes resolve` commands an operator can run for an indeterminate action: one per decision, each runnable as printed. */
export function resolveCommands(id: string, storeUrl: string): { confirmed: string; absent: string } {
  const command = (effect: string) =>
    ["raes", "resolve", id, "--effect", effect, "--store", storeUrl].map(shellWord).join(" ");
  return { confirmed: command("confirmed"), absent: command("absent") };
}
