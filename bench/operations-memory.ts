import type { RuntimeModel } from "../src/index.js";
import {
  type ControlPlaneStore,
  type InvocationRecord,
  openControlPlaneStore,
  type ToolActionRecord,
} from "../src/store/index.js";
import { exampleRecords } from "./store-records.js";

/**
 * A memory store with `groups` invocations of three tool actions each across eight participants,
 * written through the store's own writes. History is left out: a million operations' events would
 * not fit a process's memory, and the listing never reads them.
 */
export async function fillMemory(model: RuntimeModel, groups: number): Promise<ControlPlaneStore> {
  const store = await openControlPlaneStore("memory:");
  const records = exampleRecords(model);
  const base = Date.now() - groups * 40;
  const time = (ms: number) => `${new Date(ms).toISOString().slice(0, -1)}000Z`;
  for (let g = 1; g <= groups; g += 1) {
    const template = records.invocation(g, "running");
    const participantAddress = `${template.participantAddress}-${g % 8}`;
    const at = time(base + g * 40);
    const invocation: InvocationRecord = {
      ...template,
      id: `${template.id}:p${g % 8}`,
      participantAddress,
      createdAt: at,
      updatedAt: at,
    };
    await store.openInvocation(invocation, { ...records.scheduler(g), participantAddress });
    const settled: ToolActionRecord[] = [];
    for (let k = 1; k <= 3; k += 1) {
      const one = records.toolAction(invocation, "dispatched");
      const n = g * 3 + k;
      const tool: ToolActionRecord = {
        ...one,
        id: `${invocation.id}:tool=${k}`,
        toolCallId: `call-${k}`,
        admissionOrdinal: k,
        participantAddress,
        createdAt: time(base + g * 40 + k),
        updatedAt: time(base + g * 40 + k),
      };
      await store.insertToolAction(tool);
      const settlement =
        n % 1000 === 7 ? "indeterminate" : n % 20 === 3 ? "failed" : n % 31 === 5 ? "withheld" : "succeeded";
      settled.push({ ...tool, phase: "settled", settlement });
    }
    await store.commitInvocation({
      invocation: { ...invocation, state: g % 37 === 11 ? "failed" : "succeeded" },
      toolActions: settled,
      events: [],
      scheduler: { ...records.scheduler(g + 1), participantAddress },
    });
  }
  return store;
}
