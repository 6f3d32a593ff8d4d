import { createPrivateKey, type KeyObject } from "node:crypto";
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { printableStoreUrl } from "../../../printed/index.js";
import { readStoreUrl } from "../../../store/index.js";
import { counted, ExitCode, printError } from "../../exit.js";
import { inputFile, outputFile } from "../../input-files.js";
import { storeOption, withStore } from "../../store-option.js";
import { operationToWire } from "../operation-wire.js";
import { keyFileBytes, notEd25519 } from "./keys.js";
import { refuseUnchainedStore } from "./unchained.js";

interface ExportOptions {
  readonly store: string;
  readonly bundle: string;
  readonly signKey?: KeyObject;
  readonly includeInputs?: string[];
}

/** Option parser: a PEM Ed25519 private key file; anything else is a usage error (exit 2). */
function signKeyFile(file: string): KeyObject {
  const pem = keyFileBytes(file);
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new InvalidArgumentError(`${file} holds no private key (PEM)`);
  }
  if (key.asymmetricKeyType !== "ed25519") throw notEd25519(file, key.asymmetricKeyType);
  return key;
}

/** Option parser: the bundle's path, not empty (which names the working folder), as `outputFile` checks it. */
function bundleFile(value: string): string {
  if (value === "") throw new InvalidArgumentError("the bundle is a file path to write, not empty");
  return outputFile(value);
}

/** The path as the file system resolves it (links followed), or as given when it does not exist yet. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A usage error when the bundle would be written over the SQLite store it is read from, or its journal. */
function refuseStoreAsBundle(storeUrl: string, bundle: string): void {
  const read = readStoreUrl(storeUrl);
  if (!read.ok || read.location.kind !== "sqlite") return;
  const store = realPath(read.location.path);
  const target = realPath(bundle);
  if (["", "-wal", "-shm", "-journal"].some((suffix) => target === `${store}${suffix}`))
    throw new InvalidArgumentError(
      `${bundle} is the store the bundle is read from (${storeUrl}); give another file to write`,
    );
}

/** `raes export --bundle FILE`: writes the store's evidence bundle (docs/evidence-format.md). */
export function registerExportCommand(program: Command): void {
  storeOption(
    program
      .command("export")
      .requiredOption("--bundle <file>", "the evidence bundle to write (JSON Lines)", bundleFile)
      .option("--sign-key <pem>", "sign the bundle with this Ed25519 private key (PEM)", signKeyFile)
      .option(
        "--include-inputs <files...>",
        "write these files (the scenario, the manifest) whole into the bundle",
      ),
  ).action(async (options: ExportOptions) => {
    const { EvidenceCode, StoreBrokenError, storeFailure, writeBundle } = await import(
      "../../../evidence/index.js"
    );
    const signKey = options.signKey;
    const { bundleInput } = await import("./inputs.js");
    const inputs = (options.includeInputs ?? []).map((file) => bundleInput(inputFile(file)));
    const file = resolve(options.bundle);
    refuseStoreAsBundle(options.store, file);
    // Read-only, as `raes verify` opens it: an export never migrates the store it reads, and a store
    // written before history chains has none to export (docs/evidence-format.md).
    const summary = await withStore(
      options.store,
      async (store) =>
        (await store.readSnapshot((reads) => reads.historyChained()))
          ? writeBundle(store, file, {
              version: program.version() ?? "0",
              operationWire: operationToWire,
              ...(signKey ? { signKey } : {}),
              inputs,
              verifyFirst: true,
            }).catch((error: unknown) => {
              if (!(error instanceof StoreBrokenError)) throw error;
              return error.report;
            })
          : undefined,
      { create: false, readOnly: true },
    );
    if (summary === undefined) return refuseUnchainedStore(options.store, "export");
    if (!("digest" in summary)) {
      // The same line as raes verify --store prints: the tampering is named, and nothing is signed over it.
      printError(
        EvidenceCode.store_broken,
        `${printableStoreUrl(options.store)}: ${storeFailure(summary)}; no bundle was written`,
      );
      process.exitCode = ExitCode.findings;
      return;
    }
    process.stdout.write(
      `${file}: ${counted(summary.events, "event")} of ${counted(summary.participants, "participant")}, ${counted(summary.operations, "operation")}, ${counted(summary.decisions, "operator decision")}, ${summary.signed ? "signed" : "unsigned"} (${summary.digest})\n`,
    );
    process.exitCode = ExitCode.ok;
  });
}
