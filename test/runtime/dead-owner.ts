import { spawn } from "node:child_process";
import { once } from "node:events";
import { newOwnerId } from "../../src/runtime/index.js";

/** A pid that no process of this namespace has: the pid of a child that has exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid as number;
}

/** An owner id of this host, boot and PID namespace whose process has exited: provably dead. */
export async function deadOwnerId(): Promise<string> {
  const parts = newOwnerId().split("/");
  parts[1] = String(await deadPid());
  return parts.join("/");
}
