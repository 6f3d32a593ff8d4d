import { MemoryControlPlaneStore } from "../../src/store/index.js";
import { runStoreContract } from "./contract.js";

runStoreContract("memory", async () => {
  const store = new MemoryControlPlaneStore();
  return { store, cleanup: () => store.close() };
});
