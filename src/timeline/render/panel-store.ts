import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PANELS_PER_BLOCK } from "../page/index.js";
import type { DetailSpec } from "./details.js";
import { BlockEncoder, detailBlocks } from "./panels.js";

/**
 * Where the page's detail panels wait between their invocation and the details blocks, which the
 * page writes after every row: each participant's panels in order, given back as the blocks' texts
 * with the participants in the order the page shows them.
 */
export interface PanelStore {
  /** Takes the next panel of the participant at `index` (the order its history began). */
  add(index: number, make: () => DetailSpec): void;
  /** The details blocks' texts: the participants in `order` (their indexes), each one's panels in the order added. */
  blocks(order: readonly number[]): Iterable<string>;
  /** Frees what the store holds (a file); idempotent. */
  close(): void;
}

/** Panels kept in memory, each made when its block is written: for a timeline drawn from events already in memory. */
export class MemoryPanels implements PanelStore {
  readonly #waiting: (() => DetailSpec)[][] = [];

  add(index: number, make: () => DetailSpec): void {
    let list = this.#waiting[index];
    if (!list) {
      list = [];
      this.#waiting[index] = list;
    }
    list.push(make);
  }

  blocks(order: readonly number[]): Iterable<string> {
    const waiting = this.#waiting;
    return detailBlocks(
      (function* () {
        for (const index of order) for (const make of waiting[index] ?? []) yield make();
      })(),
    );
  }

  close(): void {
    this.#waiting.length = 0;
  }
}

/** A file of its own in the system's temporary directory, written at its end and read at any offset. */
class ScratchFile {
  readonly #dir: string;
  readonly #fd: number;
  #size = 0;
  #closed = false;

  constructor() {
    this.#dir = mkdtempSync(join(tmpdir(), "raes-timeline-panels-"));
    this.#fd = openSync(join(this.#dir, "panels"), "w+", 0o600);
  }

  /** Appends `text`; answers its offset and length in bytes. */
  append(text: string): readonly [number, number] {
    const at = this.#size;
    const length = writeSync(this.#fd, text, at, "utf8");
    this.#size += length;
    return [at, length];
  }

  read(at: number, length: number, buffer: Buffer): string {
    let done = 0;
    while (done < length) {
      const n = readSync(this.#fd, buffer, done, length - done, at + done);
      if (n === 0) throw new Error("the timeline's scratch file ended early");
      done += n;
    }
    return buffer.toString("utf8", 0, length);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/**
 * Panels made at once and set aside in a scratch file as JSON, a panel at a time, read back
 * participant by participant: memory holds two numbers per panel, however long the history
 * (docs/hardening.md). For a page of several participants, whose order is known only at the end.
 */
export class FilePanels implements PanelStore {
  readonly #file = new ScratchFile();
  /** Per participant: offset and length of each panel's text, flat. */
  readonly #where: number[][] = [];

  add(index: number, make: () => DetailSpec): void {
    let list = this.#where[index];
    if (!list) {
      list = [];
      this.#where[index] = list;
    }
    list.push(...this.#file.append(JSON.stringify(make())));
  }

  blocks(order: readonly number[]): Iterable<string> {
    const file = this.#file;
    const where = this.#where;
    return detailBlocks(
      (function* () {
        let buffer = Buffer.alloc(64 * 1024);
        for (const index of order) {
          const list = where[index] ?? [];
          for (let i = 0; i + 1 < list.length; i += 2) {
            const length = list[i + 1] as number;
            if (length > buffer.length) buffer = Buffer.alloc(length);
            yield JSON.parse(file.read(list[i] as number, length, buffer)) as DetailSpec;
          }
        }
      })(),
    );
  }

  close(): void {
    this.#file.close();
  }
}

/** A second participant's panel given to a store of one participant's. */
export class SecondParticipantError extends Error {
  constructor() {
    super("panels of a second participant");
    this.name = "SecondParticipantError";
  }
}

/**
 * The panels of a page of one participant, whose order is the order they come in: each panel is
 * encoded as it comes (BlockEncoder) and each block's text set aside in a scratch file as soon as
 * it is full, so memory holds one block's panels, as numbers. A panel of a second participant
 * throws `SecondParticipantError`.
 */
export class OneParticipantPanels implements PanelStore {
  readonly #file = new ScratchFile();
  readonly #blocks: (readonly [number, number])[] = [];
  readonly #block = new BlockEncoder();
  #index: number | undefined;

  add(index: number, make: () => DetailSpec): void {
    if (this.#index !== undefined && index !== this.#index) throw new SecondParticipantError();
    this.#index = index;
    this.#block.add(make());
    if (this.#block.size === PANELS_PER_BLOCK) this.#encode();
  }

  *blocks(order: readonly number[]): Generator<string> {
    if (this.#index === undefined || !order.includes(this.#index)) return;
    this.#encode();
    let buffer = Buffer.alloc(256 * 1024);
    for (const [at, length] of this.#blocks) {
      if (length > buffer.length) buffer = Buffer.alloc(length);
      yield this.#file.read(at, length, buffer);
    }
  }

  close(): void {
    this.#file.close();
  }

  #encode(): void {
    if (this.#block.size === 0) return;
    this.#blocks.push(this.#file.append(this.#block.text()));
  }
}
