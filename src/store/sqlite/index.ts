export { SqliteControlPlaneStore, type SqliteStoreOptions } from "./store.js";
