/**
 * Export child: writes a bundle of the store named on argv to FILE, and once its partial file exists
 * (at the snapshot's first read) announces `WRITING` and blocks until the parent kills it with SIGKILL.
 *
 * argv: STORE_URL FILE
 */
import { writeBundle } from "../../src/evidence/index.js";
import { openControlPlaneStore } from "../../src/store/index.js";

const [url = "", file = ""] = process.argv.slice(2);
const store = await openControlPlaneStore(url);
const blocking = {
  readSnapshot: <T>(work: (reads: never) => Promise<T>) =>
    store.readSnapshot((reads) =>
      work({
        ...reads,
        // The snapshot's first read: the partial file was created before it, and the export never ends.
        listChainHeads: async () => {
          process.stdout.write("WRITING\n");
          setInterval(() => undefined, 1 << 30);
          return new Promise<never>(() => undefined);
        },
      } as never),
    ),
};
await writeBundle(blocking, file, { version: "0" });
