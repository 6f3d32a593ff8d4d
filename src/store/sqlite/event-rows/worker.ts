/**
 * The thread that prepares a large SQLite commit's event rows (./index.ts): each job's answer is
 * posted on the port, then the shared counter is raised and notified, so the committing thread,
 * blocked inside its transaction, wakes and reads it synchronously. A job the writer already took
 * (the second shared counter) is only linked, to carry the chains on, and answered without rows.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { type EventRowsJob, prepareEventRows } from "./prepare.js";

/** The shared counter holding how many jobs, from the first, the writer prepared itself. */
const TAKEN = 1;

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
const heads = new Map<string, string>();

port.on("message", (job: EventRowsJob) => {
  let answer: unknown;
  try {
    const taken = job.index < Atomics.load(signal, TAKEN);
    const rows = prepareEventRows(job, heads, !taken);
    answer = taken ? { index: job.index, bodies: [], digests: [] } : rows;
  } catch (error) {
    answer = { failed: String(error) };
  }
  port.postMessage(answer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
