import { closeSync, openSync, readSync } from "node:fs";
import type { Command } from "commander";
import { CliErrorCode, ExitCode, printError, serveUntilClosed } from "../../exit.js";
import { inputFile } from "../../input-files.js";
import { storeOption, withStore } from "../../store-option.js";

interface ServeOptions {
  readonly store: string;
  readonly listen: string;
  readonly tokenFile?: string;
  readonly operator?: string;
}

/** The first line of a token file, reading at most 4 KiB of it. */
function firstLine(file: string): string {
  const fd = openSync(inputFile(file), "r");
  try {
    const buffer = Buffer.alloc(4096);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return (buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "").trim();
  } finally {
    closeSync(fd);
  }
}

function usage(message: string): number {
  printError(CliErrorCode.usage, message);
  return ExitCode.usage;
}

async function serve(options: ServeOptions): Promise<number> {
  const { isLoopback, newToken, parseListen, ServeErrorCode, startConsole, tokenProblem } = await import(
    "../../../serve/index.js"
  );
  const { OperatorError, operatorIdentity } = await import("../../../operations/index.js");
  const { printableStoreUrl } = await import("../../../printed/index.js");
  const listen = parseListen(options.listen);
  if (!listen)
    return usage(`--listen wants HOST:PORT or PORT (for example 127.0.0.1:7300), not ${options.listen}`);
  if (!isLoopback(listen.host) && options.tokenFile === undefined)
    return usage(`${listen.host} is not a loopback address; serving it needs --token-file`);
  let token = newToken();
  if (options.tokenFile !== undefined) {
    let line: string;
    try {
      line = firstLine(options.tokenFile);
    } catch (error) {
      return usage(
        `cannot read --token-file ${options.tokenFile}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const problem = tokenProblem(line);
    if (problem !== undefined) return usage(`--token-file ${options.tokenFile}: ${problem}`);
    token = line;
  }
  let operator: string;
  try {
    operator = operatorIdentity(options.operator);
  } catch (error) {
    if (error instanceof OperatorError) {
      printError(error.code, error.message);
      return ExitCode.usage;
    }
    throw error;
  }
  return withStore(
    options.store,
    async (store) => {
      let console_: Awaited<ReturnType<typeof startConsole>>;
      try {
        console_ = await startConsole({
          store,
          storeUrl: printableStoreUrl(options.store),
          listen,
          token,
          operator,
        });
      } catch (error) {
        printError(
          ServeErrorCode.listen_failed,
          `cannot listen on ${options.listen}: ${error instanceof Error ? error.message : String(error)}`,
        );
        return ExitCode.usage;
      }
      const where =
        options.tokenFile === undefined
          ? `${console_.url}?token=${token}`
          : `${console_.url}?token= followed by the token in ${options.tokenFile}`;
      process.stdout.write(
        `raes serve: the operator console of ${printableStoreUrl(options.store)}, decisions recorded as ${operator}\n  ${where}\nCtrl-C stops it.\n`,
      );
      return serveUntilClosed(console_);
    },
    { create: false },
  );
}

/** `raes serve`: the live operator console over a store (docs/guide/console.md). */
export function registerServeCommand(program: Command): void {
  storeOption(
    program
      .command("serve")
      .option(
        "--listen <host:port>",
        "where to listen; an address off loopback needs --token-file",
        "127.0.0.1:7300",
      )
      .option(
        "--token-file <file>",
        "the token every request must carry, on the file's first line (else a fresh one is printed in the URL)",
      )
      .option(
        "--operator <name>",
        "who decisions made from the console are recorded as (else RAES_OPERATOR, else USER@HOST)",
      ),
  ).action(async (options: ServeOptions) => {
    process.exitCode = await serve(options);
  });
}
