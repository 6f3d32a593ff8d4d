import * as crypto from "node:crypto";
import {
  type ChainHead,
  EMPTY_OPERATOR_CHAIN,
  type HistoryEvent,
  type Operation,
  type OperatorChainHead,
  type OperatorDecision,
} from "../records/index.js";
import { type ControlPlaneStore, operationPagesOldestFirst } from "../store/index.js";
import {
  type BundleInput,
  bytesDigest,
  checkInputLine,
  inputRole,
  type ScenarioDigest,
} from "./bundle-inputs.js";
import {
  BundleLineTooLongError,
  BundleProblems,
  bundleLines,
  canonicalSignature,
  EvidenceCode,
  InputUnanchoredError,
  lineMemberProblem,
  MAX_BUNDLE_LINE_BYTES,
  sealLine,
} from "./bundle-lines.js";
import { PartialBundle } from "./bundle-partial.js";
import { type ChainReport, ChainVerifier } from "./verify-chain.js";
import { type DecisionReport, DecisionVerifier } from "./verify-decisions.js";
import { BEFORE_FIRST_SEQUENCE, type StoreReport, VERIFY_PAGE, verifyReads } from "./verify-store.js";

/** `writeBundle` with `verifyFirst` found the store's chains broken in its snapshot; nothing was written. */
export class StoreBrokenError extends Error {
  readonly code = EvidenceCode.store_broken;
  constructor(readonly report: StoreReport) {
    super("the store does not verify; no bundle was written");
    this.name = "StoreBrokenError";
  }
}

/** The bundle format this code writes and reads (docs/evidence-format.md). */
export const BUNDLE_FORMAT = "raes-evidence-bundle/1";

/** What an Ed25519 signature of a bundle signs: this prefix, a newline, then the seal's digest. */
export function signedText(digest: string): string {
  return `${BUNDLE_FORMAT}\n${digest}`;
}

/** Options of `writeBundle`. */
export interface BundleOptions {
  /** The raes-ts version writing the bundle. */
  readonly version: string;
  /** An Ed25519 private key: the bundle is signed when given. */
  readonly signKey?: crypto.KeyObject;
  /**
   * The files the run read, each written byte for byte into the bundle (`--include-inputs`) with the
   * role a chain head records its anchor digest for; a file no chain started from is refused
   * (`InputUnanchoredError`) and nothing is written.
   */
  readonly inputs?: readonly BundleInput[];
  /** The wire form of an operation (snake_case, as `raes operation --json` prints it); as stored by default. */
  readonly operationWire?: (operation: Operation) => unknown;
  /** The time written in the header. */
  readonly now?: () => string;
  /**
   * Verify the store in the same snapshot before writing (`raes export`): a broken store throws
   * `StoreBrokenError` and no bundle is written, so no signature vouches for tampered history.
   */
  readonly verifyFirst?: boolean;
  /** Operations read per page (default the store's `PAGE_SIZE`): what memory holds of them at a time. */
  readonly pageSize?: number;
}

/** What `writeBundle` wrote. */
export interface BundleSummary {
  readonly events: number;
  readonly participants: number;
  readonly operations: number;
  /** Operator decisions written (docs/evidence-format.md). */
  readonly decisions: number;
  readonly digest: string;
  readonly signed: boolean;
}

/**
 * Writes a store's evidence as one JSON Lines file (docs/evidence-format.md): a header, each
 * participant's chain, the operator chain's head, every history event in commit order, every
 * operator decision in order, every operation, the v2 seed fingerprints,
 * the inputs when given, and a last `seal` line with the SHA-256 of every byte before it, signed with
 * Ed25519 when a key is given. History and operations are read a page at a time, so memory stays bounded.
 */
export async function writeBundle(
  store: Pick<ControlPlaneStore, "readSnapshot">,
  file: string,
  options: BundleOptions,
): Promise<BundleSummary> {
  // Written beside the file and renamed over it only when whole: a failed export leaves no half
  // bundle, and an existing file is never truncated before the store has been read.
  const out = await PartialBundle.create(file);
  const hash = crypto.createHash("sha256");
  let lines = 0;
  const write = async (value: unknown) => {
    const line = `${JSON.stringify(value)}\n`;
    // What `raes verify FILE` reads: a longer line would make a bundle no verifier accepts.
    if (Buffer.byteLength(line) - 1 > MAX_BUNDLE_LINE_BYTES)
      throw new BundleLineTooLongError(
        `line ${lines + 1} of the bundle would be longer than ${MAX_BUNDLE_LINE_BYTES} bytes; nothing was written`,
      );
    hash.update(line);
    lines += 1;
    await out.put(line);
  };
  try {
    // One snapshot: heads, events, decisions and operations as they stood at one moment, so the
    // bundle verifies however much others append while it is written.
    return await store.readSnapshot(async (store) => {
      if (options.verifyFirst) {
        const report = await verifyReads(store);
        if (!report.ok) throw new StoreBrokenError(report);
      }
      const heads = await store.listChainHeads();
      // Each input's role is what a chain started from, decided before a byte is written.
      const inputs = (options.inputs ?? []).map((input) => {
        const role = inputRole(input, heads);
        if (role === undefined)
          throw new InputUnanchoredError(
            `${input.name} is neither the scenario nor the manifest any chain of the store started from (${anchorsPhrase(input)}); no bundle was written`,
          );
        return { ...input, role };
      });
      const schedulers = await store.listSchedulers();
      await write({
        kind: "header",
        format: BUNDLE_FORMAT,
        raes_ts_version: options.version,
        created_at: (options.now ?? (() => new Date().toISOString()))(),
      });
      for (const head of heads) await write({ kind: "chain", ...head });
      const operatorHead = await store.getDecisionHead();
      await write({ kind: "operator_chain", ...operatorHead });
      let events = 0;
      for (let after = BEFORE_FIRST_SEQUENCE; ; ) {
        const page = await store.readChainPage(after, VERIFY_PAGE);
        if (page.length === 0) break;
        for (const event of page) await write({ kind: "event", event });
        events += page.length;
        after = (page[page.length - 1] as { sequence: number }).sequence;
      }
      let decisions = 0;
      for (let after = 0; ; ) {
        const page = await store.readDecisionPage(after, VERIFY_PAGE);
        if (page.length === 0) break;
        for (const decision of page) await write({ kind: "decision", decision });
        decisions += page.length;
        after = (page[page.length - 1] as OperatorDecision).sequence;
      }
      // Oldest first, a page at a time: the listing's entries are the operations as read by id.
      let operations = 0;
      for await (const page of operationPagesOldestFirst(store, options.pageSize)) {
        for (const { participantAddress: _p, createdAt: _c, ...operation } of page)
          await write({ kind: "operation", operation: (options.operationWire ?? ((o) => o))(operation) });
        operations += page.length;
      }
      for (const s of schedulers) {
        if (s.streamFingerprint === undefined) continue;
        await write({
          kind: "seed_fingerprint",
          participant_address: s.participantAddress,
          policy_address: s.policyAddress,
          stream_fingerprint: s.streamFingerprint,
        });
      }
      for (const input of inputs) {
        // The file's own bytes, base64: a text decoded from them would replace invalid UTF-8 with U+FFFD.
        await write({
          kind: "input",
          role: input.role,
          name: input.name,
          digest: bytesDigest(input.bytes),
          base64: input.bytes.toString("base64"),
        });
      }
      const digest = `sha256:${hash.digest("hex")}`;
      const signature = options.signKey
        ? crypto.sign(null, Buffer.from(signedText(digest)), options.signKey).toString("base64")
        : null;
      await out.put(sealLine({ lines, digest, signature }));
      await out.commit();
      return {
        events,
        participants: heads.length,
        operations,
        decisions,
        digest,
        signed: signature !== null,
      };
    });
  } catch (error) {
    await out.discard();
    throw error;
  }
}

/** The outcome of verifying a bundle. */
export interface BundleReport {
  readonly ok: boolean;
  /**
   * Each thing that does not match, one sentence each, first found first: at most
   * `MAX_PROBLEMS_PER_KIND` of a kind, then one "and N more" sentence for that kind.
   */
  readonly problems: readonly string[];
  /** Problems found but not listed in `problems` (beyond the cap of their kind); absent when none. */
  readonly problems_omitted?: number;
  /** Whether a signature was present and checked against the given public key. */
  readonly signature: "verified" | "unsigned" | "not-checked" | "invalid";
  readonly chains?: ChainReport;
  /** The operator chain recomputed from the decision lines. */
  readonly operator?: DecisionReport;
  /** Input lines read, and those whose bytes yield a digest a chain line records as its scenario or manifest. */
  readonly inputs?: { readonly total: number; readonly anchored: number };
  readonly raes_ts_version?: string;
}

/**
 * Verifies a bundle offline, with no store: the seal's digest over every byte before it, the Ed25519
 * signature when a public key is given (a key with an unsigned bundle fails), and every participant's
 * chain recomputed from the events, and the operator chain from the decisions (docs/evidence-format.md). Reads the file a line at a time.
 */
export async function verifyBundle(
  file: string,
  options: {
    readonly publicKey?: crypto.KeyObject;
    /** The longest line read (default `MAX_BUNDLE_LINE_BYTES`); a longer one ends the reading. */
    readonly maxLineBytes?: number;
    /**
     * The scenario anchor digest of an input's bytes (the compiled model's, `raes verify` compiles
     * it); without it a scenario input's bytes are checked against its digest only.
     */
    readonly scenarioDigest?: ScenarioDigest;
  } = {},
): Promise<BundleReport> {
  const max = options.maxLineBytes ?? MAX_BUNDLE_LINE_BYTES;
  const problems = new BundleProblems();
  const hash = crypto.createHash("sha256");
  const heads: ChainHead[] = [];
  let verifier: ChainVerifier | undefined;
  let header: { format?: unknown; raes_ts_version?: unknown } | undefined;
  let seal: { lines?: unknown; digest?: unknown; signature?: unknown } | undefined;
  let lines = 0;
  /** The lines before the seal: what the seal counts, whatever follows it. */
  let beforeSeal = 0;
  let chainsOk = true;
  let operatorHead: OperatorChainHead | undefined;
  let decisions: DecisionVerifier | undefined;
  let decisionsOk = true;
  const inputs = { total: 0, anchored: 0 };
  for await (const line of bundleLines(file, max)) {
    lines += 1;
    if (seal !== undefined) {
      problems.add("line after the seal", `line ${lines}: a line after the seal`);
      break;
    }
    if ("tooLong" in line) {
      problems.add(
        "line too long",
        `line ${lines}: ${EvidenceCode.line_too_long}: longer than ${max} bytes; the bundle was read no further`,
      );
      break;
    }
    // The digest is of the file's own bytes: never of a text decoded and encoded again.
    const { bytes, text } = line;
    if (text === undefined) {
      problems.add("line not UTF-8", `line ${lines}: ${EvidenceCode.invalid_utf8}: the line is not UTF-8`);
      hash.update(bytes);
      continue;
    }
    let value: { kind?: unknown; [key: string]: unknown };
    try {
      value = JSON.parse(text) as typeof value;
      if (typeof value !== "object" || value === null) throw new TypeError("not an object");
    } catch {
      problems.add("line not a JSON object", `line ${lines}: not a JSON object`);
      hash.update(bytes);
      continue;
    }
    const members = lineMemberProblem(text, value);
    if (members !== undefined)
      problems.add("line members", `line ${lines}: ${EvidenceCode.line_members}: ${members}`);
    if (value.kind === "seal") {
      seal = value as unknown as typeof seal;
      beforeSeal = lines - 1;
      // Compared as bytes: extra members, a repeated key (JSON.parse keeps the last), spaces, a CR,
      // an escaped letter or a missing final line feed all make other bytes than the canonical line.
      if (!bytes.equals(Buffer.from(sealLine(seal ?? {}))))
        problems.add(
          "seal",
          `line ${lines}: ${EvidenceCode.seal_not_canonical}: the seal line is not in its one spelling ({"kind":"seal","lines":N,"digest":"sha256:…","signature":…} then one line feed: members in that order, no other members, no spaces, no escapes)`,
        );
      continue;
    }
    hash.update(bytes);
    if (lines === 1) {
      if (value.kind !== "header" || value.format !== BUNDLE_FORMAT)
        problems.add("header", `line 1: not a ${BUNDLE_FORMAT} header`);
      header = value as unknown as typeof header;
    } else if (value.kind === "chain") {
      // The heads start and end the chains: one read after the first event would be ignored.
      if (verifier !== undefined)
        problems.add("chain line out of place", `line ${lines}: a chain line after the first event line`);
      heads.push(value as unknown as ChainHead);
    } else if (value.kind === "event") {
      verifier ??= new ChainVerifier(heads);
      if (!isEvent(value.event)) {
        problems.add(
          "event line without an event",
          `line ${lines}: an event line without an event (participant_address, sequence)`,
        );
        chainsOk = false;
      } else if (chainsOk && !verifier.add(value.event)) chainsOk = false;
    } else if (value.kind === "input") {
      const checked = checkInputLine(
        value as Parameters<typeof checkInputLine>[0],
        heads,
        options.scenarioDigest,
        {
          digest: EvidenceCode.input_digest,
          unanchored: EvidenceCode.input_unanchored,
        },
      );
      inputs.total += 1;
      if (checked.checked) inputs.anchored += 1;
      if (checked.problem !== undefined) problems.add("input", `line ${lines}: ${checked.problem}`);
    } else if (value.kind === "operator_chain") {
      if (operatorHead !== undefined || decisions !== undefined)
        problems.add(
          "operator_chain line out of place",
          `line ${lines}: a second operator_chain line, or one after a decision`,
        );
      operatorHead = value as unknown as OperatorChainHead;
    } else if (value.kind === "decision") {
      if (operatorHead === undefined && decisions === undefined)
        problems.add("decision out of place", `line ${lines}: a decision before the operator_chain line`);
      decisions ??= new DecisionVerifier(operatorHead ?? EMPTY_OPERATOR_CHAIN);
      if (!isDecision(value.decision)) {
        problems.add(
          "decision line without a decision",
          `line ${lines}: a decision line without a decision (sequence, chain_digest)`,
        );
        decisionsOk = false;
      } else if (decisionsOk && !decisions.add(value.decision)) decisionsOk = false;
    } else if (value.kind !== "operation" && value.kind !== "seed_fingerprint") {
      problems.add("unknown kind", `line ${lines}: unknown kind ${JSON.stringify(value.kind)}`);
    }
  }
  if (header === undefined) problems.add("header", `the bundle has no ${BUNDLE_FORMAT} header line`);
  const chains = (verifier ?? new ChainVerifier(heads)).finish();
  if (chains.failure) {
    const f = chains.failure;
    problems.add(
      "event chain",
      `event ${f.kind}: participant ${f.participant_address}, sequence ${f.sequence}: ${f.detail}`,
    );
  }
  const operator = (decisions ?? new DecisionVerifier(operatorHead ?? EMPTY_OPERATOR_CHAIN)).finish();
  if (operator.failure) {
    const f = operator.failure;
    problems.add("operator chain", `operator decision ${f.kind}: sequence ${f.sequence}: ${f.detail}`);
  }
  const digest = `sha256:${hash.digest("hex")}`;
  let signature: BundleReport["signature"] = "unsigned";
  if (seal === undefined) {
    problems.add("seal", "the bundle has no seal line: it is cut short");
  } else {
    if (seal.digest !== digest)
      problems.add(
        "seal",
        `seal: the digest of the bundle is ${digest}, the seal says ${String(seal.digest)}`,
      );
    if (seal.lines !== beforeSeal)
      problems.add(
        "seal",
        `seal: the bundle has ${beforeSeal} lines before its seal, the seal says ${String(seal.lines)}`,
      );
    signature = checkSignature(seal, options.publicKey, problems);
  }
  return {
    ok: problems.total === 0,
    problems: problems.list(),
    ...(problems.omitted > 0 ? { problems_omitted: problems.omitted } : {}),
    signature,
    chains,
    operator,
    inputs,
    ...(typeof header?.raes_ts_version === "string" ? { raes_ts_version: header.raes_ts_version } : {}),
  };
}

function isEvent(value: unknown): value is HistoryEvent {
  const event = value as Partial<HistoryEvent> | null;
  return (
    typeof event === "object" &&
    event !== null &&
    typeof event.participant_address === "string" &&
    Number.isSafeInteger(event.sequence)
  );
}

function isDecision(value: unknown): value is OperatorDecision {
  const decision = value as Partial<OperatorDecision> | null;
  return (
    typeof decision === "object" &&
    decision !== null &&
    Number.isSafeInteger(decision.sequence) &&
    typeof decision.chain_digest === "string"
  );
}

function checkSignature(
  seal: { digest?: unknown; signature?: unknown },
  publicKey: crypto.KeyObject | undefined,
  problems: BundleProblems,
): BundleReport["signature"] {
  const signed = typeof seal.signature === "string";
  if (signed && !canonicalSignature(seal.signature as string)) {
    // One spelling only: a verifier elsewhere must not accept bytes this one refuses, or the reverse.
    problems.add(
      "signature",
      `signature: ${EvidenceCode.signature_malformed}: not standard base64 (with padding) of 64 bytes`,
    );
    return "invalid";
  }
  if (publicKey === undefined) return signed ? "not-checked" : "unsigned";
  if (!signed) {
    problems.add("signature", "signature: the bundle is not signed, and a public key was given");
    return "unsigned";
  }
  let valid = false;
  try {
    valid = crypto.verify(
      null,
      Buffer.from(signedText(String(seal.digest))),
      publicKey,
      Buffer.from(seal.signature as string, "base64"),
    );
  } catch {
    valid = false;
  }
  if (!valid) problems.add("signature", "signature: does not verify with the given public key");
  return valid ? "verified" : "invalid";
}

/** What an unanchored input reads as: its digest as each role, or that it reads as neither. */
function anchorsPhrase(input: BundleInput): string {
  const as = Object.entries(input.anchors).map(([role, digest]) => `as a ${role} its digest is ${digest}`);
  return as.length === 0 ? "it reads as neither a scenario nor a manifest" : as.join("; ");
}
