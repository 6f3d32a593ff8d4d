// Node 20 does not apply `--import tsx` from a Worker's execArgv to the worker's entry module
// (ERR_UNKNOWN_FILE_EXTENSION), so the worker registers tsx itself before importing the TS entry.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
