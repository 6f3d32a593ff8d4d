export { PostgresControlPlaneStore, type PostgresStoreOptions } from "./store.js";
