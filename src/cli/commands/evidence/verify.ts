import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { type Command, InvalidArgumentError } from "commander";
import { printableStoreUrl } from "../../../printed/index.js";
import { counted, ExitCode, printJson } from "../../exit.js";
import { inputFile } from "../../input-files.js";
import { storeOption, withStore } from "../../store-option.js";
import { keyFileBytes, notEd25519 } from "./keys.js";
import { refuseUnchainedStore } from "./unchained.js";

interface VerifyOptions {
  readonly store: string;
  readonly publicKey?: KeyObject;
  readonly json?: boolean;
}

/**
 * Option parser: a PEM Ed25519 public key file. A file that holds none, another type of key (which
 * could only report "does not verify", as if the bundle were tampered with), or a private key (which
 * belongs with the signer, never beside a bundle) is a usage error (exit 2).
 */
function publicKeyFile(file: string): KeyObject {
  const pem = keyFileBytes(file);
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new InvalidArgumentError(`${file} holds no public key (PEM)`);
  }
  if (isPrivateKey(pem))
    throw new InvalidArgumentError(
      `${file} holds a private key; give the signer's public key (openssl pkey -in ${file} -pubout writes it)`,
    );
  if (key.asymmetricKeyType !== "ed25519") throw notEd25519(file, key.asymmetricKeyType);
  return key;
}

/** Whether a PEM that yields a public key holds a private key (from which Node derives the public one). */
function isPrivateKey(pem: Buffer): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    // An encrypted private key cannot be opened without its passphrase: its PEM label still says what it is.
    return /-----BEGIN (?:[A-Z0-9 ]+ )?PRIVATE KEY-----/.test(pem.toString("latin1"));
  }
}

/**
 * `raes verify [FILE]`: without FILE, recomputes every history chain of the store; with FILE, checks an
 * evidence bundle offline (docs/guide/evidence.md). Exit 0 when everything verifies, 1 naming the
 * first thing that does not.
 */
export function registerVerifyCommand(program: Command): void {
  storeOption(
    program
      .command("verify [bundle]")
      .option(
        "--public-key <pem>",
        "the Ed25519 public key a bundle's signature must verify with",
        publicKeyFile,
      )
      .option("--json", "print the report as JSON"),
  ).action(async (bundle: string | undefined, options: VerifyOptions, command: Command) => {
    const { storeFailure, verifyBundle, verifyReads } = await import("../../../evidence/index.js");
    // A bundle is checked with no store: a --store beside it would be silently unused.
    if (bundle !== undefined && command.getOptionValueSource("store") === "cli")
      throw new InvalidArgumentError(
        `give a bundle or --store, not both: raes verify FILE checks the bundle alone, raes verify --store URL the store`,
      );
    if (bundle === undefined && options.publicKey !== undefined)
      throw new InvalidArgumentError("--public-key checks a bundle's signature: give the bundle FILE too");
    if (bundle !== undefined) {
      const publicKey = options.publicKey;
      const { scenarioDigest } = await import("./inputs.js");
      const report = await verifyBundle(inputFile(bundle), {
        scenarioDigest,
        ...(publicKey ? { publicKey } : {}),
      });
      process.exitCode = report.ok ? ExitCode.ok : ExitCode.findings;
      if (options.json) return printJson({ bundle, ...report });
      if (!report.ok) {
        for (const problem of report.problems) process.stdout.write(`${bundle}: ${problem}\n`);
        return;
      }
      const chains = report.chains;
      const signature =
        report.signature === "verified"
          ? "signature verified"
          : report.signature === "not-checked"
            ? // No command is printed: it would need the signer's key, which only the reader has.
              "signature present but not checked (give the signer's public key with --public-key to check it)"
            : "unsigned";
      const inputs =
        (report.inputs?.total ?? 0) > 0
          ? `, ${counted(report.inputs?.total ?? 0, "input")} matching a chain's scenario or manifest digest`
          : "";
      process.stdout.write(
        `${bundle}: verified: ${counted(chains?.events ?? 0, "event")} of ${counted(chains?.participants ?? 0, "participant")}, chains intact, ${counted(report.operator?.decisions ?? 0, "operator decision")}${inputs}, seal intact, ${signature}\n`,
      );
      return;
    }
    // Read-only: the store audited is never written, an older schema never migrated; one snapshot, so
    // a writer appending meanwhile is not taken for tampering (docs/evidence-format.md). Chained or not
    // is the schema's step, not whether chain rows exist: an emptied chain table is tampering.
    const report = await withStore(
      options.store,
      (store) =>
        store.readSnapshot(async (reads) =>
          (await reads.historyChained()) ? verifyReads(reads) : undefined,
        ),
      { create: false, readOnly: true },
    );
    if (report === undefined) return refuseUnchainedStore(options.store, "verify");
    process.exitCode = report.ok ? ExitCode.ok : ExitCode.findings;
    if (options.json) return printJson(report);
    const where = printableStoreUrl(options.store);
    const failure = storeFailure(report);
    if (failure !== undefined) {
      process.stdout.write(`${where}: ${failure}\n`);
      return;
    }
    const backfilled =
      report.backfilled > 0
        ? ` (${counted(report.backfilled, "chain")} computed by the schema step over older history)`
        : "";
    process.stdout.write(
      `${where}: verified: ${counted(report.events, "event")} of ${counted(report.participants, "participant")}, every chain intact${backfilled}; ${counted(report.operator.decisions, "operator decision")}, operator chain intact; resolutions match their decisions (${report.resolutions?.resolutions ?? 0})\n`,
    );
  });
}
