import { MEMORY_STORE_URL } from "../../records/index.js";
import { DelegatingStore } from "../delegating.js";
import { MemoryLeases } from "./leases.js";
import { MemoryReads } from "./reads.js";
import { MemoryTables } from "./schema.js";
import { MemoryWrites } from "./writes.js";

/** Options for the in-memory store. */
export interface MemoryStoreOptions {
  /** Milliseconds since the epoch; injected so lease expiry is testable. */
  readonly now?: () => number;
}

/** A process-local control plane: the reference semantics every durable store must match. */
export class MemoryControlPlaneStore extends DelegatingStore {
  constructor(options: MemoryStoreOptions = {}) {
    const tables = new MemoryTables();
    const leases = new MemoryLeases(options.now ?? Date.now);
    super(MEMORY_STORE_URL, {
      reads: new MemoryReads(tables),
      writes: new MemoryWrites(tables, leases),
      leases,
    });
  }

  async close(): Promise<void> {}
}
