import { InvalidArgumentError } from "commander";
import { nonRegularInputFile } from "../input/index.js";

/**
 * Option and argument parser for a file the command reads: a FIFO, device, directory or socket is a
 * usage error (exit 2) before anything opens it, since reading one can block or never end.
 */
export function inputFile(value: string): string {
  const refused = nonRegularInputFile(value);
  if (refused !== undefined) throw new InvalidArgumentError(`${refused}; give a file`);
  return value;
}

/** Option parser for a file the command writes: an existing FIFO, device or directory is a usage error. */
export function outputFile(value: string): string {
  const refused = nonRegularInputFile(value);
  if (refused !== undefined) throw new InvalidArgumentError(`${refused}; give a file path to write`);
  return value;
}
