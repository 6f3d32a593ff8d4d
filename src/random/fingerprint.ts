import { blake3 } from "@noble/hashes/blake3.js";

/** BLAKE3 derive-key context of control fingerprints; a fixed label, so no other hash can collide with one. */
const CONTEXT = new TextEncoder().encode("raes-ts 2026 stochastic-control fingerprint v1");
const FINGERPRINT_BYTES = 16;

/**
 * A one-way fingerprint of a stochastic control (its namespace and derived stream key), safe to store:
 * BLAKE3 derive-key over the 32-byte key then the namespace, truncated to 128 bits, as hex. It tells
 * whether a run is reopened with the same control and reveals neither the key nor the seed.
 */
export function controlFingerprint(streamKey: Uint8Array, namespace: string): string {
  const material = new Uint8Array([...streamKey, ...new TextEncoder().encode(namespace)]);
  return Buffer.from(blake3(material, { context: CONTEXT, dkLen: FINGERPRINT_BYTES })).toString("hex");
}
