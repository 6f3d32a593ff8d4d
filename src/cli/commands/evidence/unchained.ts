import { printableStoreUrl, printedCommand } from "../../../printed/index.js";
import { CliErrorCode, ExitCode, printError } from "../../exit.js";

/**
 * Refuses a store written before history chains, as `raes verify` and `raes export` both do: it was
 * opened read-only and left as it is (docs/evidence-format.md); exit 2 with how to chain it.
 */
export function refuseUnchainedStore(storeUrl: string, command: "verify" | "export"): void {
  const store = printableStoreUrl(storeUrl);
  printError(
    CliErrorCode.store_unchained,
    `${store} was written before history chains (schema step 13) and holds none to check; it was left as it is. Open it once with write access to chain its history in commit order (any command that opens it for writing does, e.g. ${printedCommand(["operations", "--store", store])}), then ${command} again`,
  );
  process.exitCode = ExitCode.usage;
}
