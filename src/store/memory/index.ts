export { MemoryControlPlaneStore, type MemoryStoreOptions } from "./store.js";
