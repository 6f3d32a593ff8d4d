#!/usr/bin/env node
import { runCli } from "./program.js";

// A reader that closed its end early (`raes history | head`) has all it wanted: stop quietly with
// the command's outcome so far, as Unix tools do, not with an unhandled EPIPE and a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
});

// A closed stderr (`raes … 2>&-`, a reader gone) loses the message, not the exit code: the command
// goes on and ends with its own code (2 for a usage error), not 1 from an unhandled EPIPE.
process.stderr.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
});

process.exitCode = await runCli(process.argv.slice(2));
