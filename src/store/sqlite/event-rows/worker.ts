/**
 * The thread that prepares a large SQLite commit's event rows (./index.ts): each job's answer is
 * posted on the port, then the shared counter is raised and notified, so the committing thread,
 * blocked inside its transaction, wakes and reads it synchronously.
 */
import { type MessagePort, workerData } from "node:worker_threads";
import { type EventRowsJob, prepareEventRows } from "./prepare.js";

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };
const heads = new Map<string, string>();

port.on("message", (job: EventRowsJob) => {
  let answer: unknown;
  try {
    answer = prepareEventRows(job, heads);
  } catch (error) {
    answer = { failed: String(error) };
  }
  port.postMessage(answer);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
