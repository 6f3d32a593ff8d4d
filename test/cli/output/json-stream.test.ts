import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { writeJsonObject } from "../../../src/cli/output/index.js";

/** A stream that keeps what it was given, each write held until `release()` when `hold` is set. */
class Sink extends Writable {
  text = "";
  readonly held: (() => void)[] = [];
  hold: boolean;
  constructor(hold: boolean) {
    super({ highWaterMark: 64, decodeStrings: false });
    this.hold = hold;
  }
  override _write(chunk: string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.text += chunk;
    if (this.hold) this.held.push(() => done());
    else done();
  }
  release(): void {
    this.hold = false;
    for (const done of this.held.splice(0)) done();
  }
}

/** `count` pages of `size` items, counting how many pages were read. */
function counted(count: number, size: number) {
  const state = { read: 0 };
  async function* pages() {
    for (let p = 0; p < count; p += 1) {
      state.read += 1;
      yield Array.from({ length: size }, (_, i) => ({
        n: p * size + i,
        text: `line\n"${p}"`,
        list: [i, { k: null }],
      }));
    }
  }
  return { state, pages };
}

/** Lets every ready promise and I/O callback run. */
const settle = async () => {
  for (let i = 0; i < 20; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

describe("a JSON object streamed a page at a time", () => {
  it("is byte for byte what JSON.stringify(value, null, 2) prints, with a newline", async () => {
    const cases: [Record<string, unknown[] | unknown>, number][] = [
      [{ events: [], schedulers: [] }, 3],
      [{ events: [{ a: 1 }], schedulers: [{ s: "x", nested: { deep: [[], {}] } }] }, 1],
      [{ operations: [1, "two", null, { three: [3] }, undefined, []] }, 2],
      [{ only: "value", n: 0 }, 1],
      [{}, 1],
    ];
    for (const [object, size] of cases) {
      const out = new Sink(false);
      const fields = Object.fromEntries(
        Object.entries(object).map(([k, v]) => {
          if (!Array.isArray(v) || k === "schedulers") return [k, { value: v }];
          const pages = async function* () {
            for (let i = 0; i < v.length; i += size) yield v.slice(i, i + size);
          };
          return [k, { pages: pages() }];
        }),
      );
      await writeJsonObject(out, fields);
      assert.equal(out.text, `${JSON.stringify(object, null, 2)}\n`, JSON.stringify(object));
    }
  });

  it("maps each item as it is written", async () => {
    const out = new Sink(false);
    const pages = async function* () {
      yield [1, 2];
      yield [3];
    };
    await writeJsonObject(out, { n: { pages: pages(), map: (x: number) => ({ twice: x * 2 }) } });
    assert.deepEqual(JSON.parse(out.text), { n: [{ twice: 2 }, { twice: 4 }, { twice: 6 }] });
  });

  it("reads the next page only once the output has drained: a stalled reader holds the store's reads", async () => {
    const { state, pages } = counted(100, 50);
    const out = new Sink(true);
    let finished = false;
    const writing = writeJsonObject(out, { items: { pages: pages() } }).then(() => {
      finished = true;
    });
    await settle();
    assert.equal(finished, false, "the writer waits for the reader");
    assert.ok(state.read <= 2, `${state.read} of 100 pages read while the output was full`);
    const stalledAt = state.read;
    await settle();
    assert.equal(state.read, stalledAt, "nothing more is read until the output drains");
    out.release();
    await writing;
    assert.equal(state.read, 100);
    const parsed = JSON.parse(out.text) as { items: { n: number }[] };
    assert.deepEqual(
      parsed.items.map((item) => item.n),
      Array.from({ length: 5_000 }, (_, i) => i),
    );
  });

  it("stops reading pages when the output closes, and ends quietly", async () => {
    const { state, pages } = counted(100, 50);
    const out = new Sink(true);
    const writing = writeJsonObject(out, { items: { pages: pages() } });
    await settle();
    out.destroy();
    await writing;
    assert.ok(state.read <= 3, `${state.read} pages read for a closed output`);
  });
});
