import * as crypto from "node:crypto";
import { type ChainHead, jcsDigest } from "../records/index.js";

/** What an included input is to the chains: the run's scenario or its manifest (docs/evidence-format.md). */
export const InputRole = {
  /** The SDL scenario: `scenario_digest` is the digest of the runtime model compiled from it. */
  scenario: "scenario",
  /** The backend manifest JSON: `manifest_digest` is the digest of its JSON value. */
  manifest: "manifest",
} as const;
/** An input's role. */
export type InputRole = (typeof InputRole)[keyof typeof InputRole];

/** A file given to `writeBundle`: its exact bytes and the anchor digest it yields as each role it can be read as. */
export interface BundleInput {
  readonly name: string;
  readonly bytes: Buffer;
  /**
   * The digest the file yields as a scenario (the compiled model's) and as a manifest (its JSON
   * value's), each absent when the file cannot be read as one: the role is the one a chain records.
   */
  readonly anchors: { readonly [R in InputRole]?: string };
}

/** How `raes verify FILE` computes a scenario's anchor digest from its bytes (the compiler is the CLI's). */
export type ScenarioDigest = (bytes: Buffer) => string | undefined;

/** `D` of bytes: `sha256:` and their hex SHA-256. */
export function bytesDigest(bytes: Buffer | string): string {
  return `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
}

/** The anchor digest of each role the heads record, by role. */
function recorded(heads: readonly ChainHead[], role: InputRole): Set<string> {
  const found = new Set<string>();
  for (const head of heads) {
    const digest = role === InputRole.scenario ? head.scenario_digest : head.manifest_digest;
    if (typeof digest === "string") found.add(digest);
  }
  return found;
}

/**
 * The role an input is written with: the first whose anchor digest a chain head records, or undefined
 * when no chain started from this file (the export refuses it: evidence.input-unanchored).
 */
export function inputRole(input: BundleInput, heads: readonly ChainHead[]): InputRole | undefined {
  for (const role of [InputRole.scenario, InputRole.manifest]) {
    const anchor = input.anchors[role];
    if (anchor !== undefined && recorded(heads, role).has(anchor)) return role;
  }
  return undefined;
}

/** A manifest's anchor digest from its bytes: `D(JCS(value))` of its UTF-8 JSON, or undefined when it is none. */
export function manifestDigest(bytes: Buffer): string | undefined {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return jcsDigest(JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** What checking one `input` line found: nothing (undefined), or one sentence with its code. */
export function checkInputLine(
  line: {
    readonly role?: unknown;
    readonly name?: unknown;
    readonly digest?: unknown;
    readonly base64?: unknown;
  },
  heads: readonly ChainHead[],
  scenarioDigest: ScenarioDigest | undefined,
  codes: { readonly digest: string; readonly unanchored: string },
): { readonly problem?: string; readonly checked: boolean } {
  const { role, name, digest, base64 } = line;
  if (
    (role !== InputRole.scenario && role !== InputRole.manifest) ||
    typeof name !== "string" ||
    typeof base64 !== "string" ||
    // One spelling only, as the signature's: other bytes would decode to the same file.
    Buffer.from(base64, "base64").toString("base64") !== base64
  )
    return {
      checked: false,
      problem: `${codes.digest}: not an input line (role scenario or manifest, name, digest, base64 in standard padded base64)`,
    };
  const bytes = Buffer.from(base64, "base64");
  if (digest !== bytesDigest(bytes))
    return {
      checked: false,
      problem: `${codes.digest}: input ${JSON.stringify(name)}: its digest ${String(digest)} is not the digest of its bytes (${bytesDigest(bytes)})`,
    };
  const anchor = role === InputRole.manifest ? manifestDigest(bytes) : scenarioDigest?.(bytes);
  if (role === InputRole.scenario && scenarioDigest === undefined) return { checked: false };
  const field = role === InputRole.scenario ? "scenario_digest" : "manifest_digest";
  if (anchor === undefined || !recorded(heads, role).has(anchor))
    return {
      checked: false,
      problem: `${codes.unanchored}: input ${JSON.stringify(name)} (${role}): ${anchor === undefined ? `it cannot be read as a ${role}` : `it yields ${field} ${anchor}`}, which no chain line records`,
    };
  return { checked: true };
}
