import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { renderBenchmarksPage, type SuiteRun } from "../../../bench/shared/index.js";

const CONTEXT = {
  argv: ["store", "--quick", "+", "port", "--markdown"],
  commit: "abc1234",
  date: new Date("2026-01-02T03:04:05Z"),
  load: [0.5, 1.25, 2],
  cores: 2,
  node: "v20.0.0",
};

const RUNS: SuiteRun[] = [
  {
    suite: "store",
    args: ["--quick"],
    seconds: 12.34,
    printed: [
      {
        kind: "table",
        title: "store / port: cycles per second",
        header: ["store", "port/floor"],
        rows: [
          ["sqlite", "0.91"],
          ["  nested | piped", "1.00"],
        ],
      },
      { kind: "note", text: "floor = the same rows by hand;\nport = through the runtime port" },
    ],
  },
  { suite: "port", args: [], seconds: 1, printed: [] },
  {
    suite: "soak",
    args: [],
    seconds: 2,
    printed: [{ kind: "image", name: "soak.png", alt: "cost and RSS", png: new Uint8Array([1, 2]) }],
  },
];

describe("the benchmarks page", () => {
  const page = renderBenchmarksPage(RUNS, CONTEXT);

  it("names the command, the commit, the date and the load of the run", () => {
    assert.ok(page.startsWith("# Benchmarks\n"));
    assert.ok(
      page.includes("Made by `npm run bench -- store --quick + port --markdown` at commit `abc1234`"),
    );
    assert.ok(page.includes("on 2026-01-02 03:04 UTC, on 2 cores with a load average of 0.50 / 1.25 / 2.00"));
    assert.match(page, /```sh\nnpm run build.*\nnpm run bench -- store --quick \+ port --markdown\n```/);
  });

  it("holds each suite of the run, in order, with its arguments, tables and notes", () => {
    assert.deepEqual(page.match(/^## .*$/gm), [
      "## Reproduce",
      "## `store` (`--quick`; 12.3 s)",
      "## `port` (default sizes; 1.0 s)",
      "## `soak` (default sizes; 2.0 s)",
    ]);
    assert.ok(
      page.includes(
        "**store / port: cycles per second**\n\n| store | port/floor |\n|---|---|\n| sqlite | 0.91 |\n" +
          "| &nbsp;&nbsp;nested \\| piped | 1.00 |\n",
      ),
      "a markdown table: pipes escaped, a nested row's indentation kept",
    );
    assert.ok(page.includes("floor = the same rows by hand;  \nport = through the runtime port"));
    assert.ok(page.includes("## `port` (default sizes; 1.0 s)\n\nIt printed no table."));
  });

  it("shows an image a suite drew from the folder beside the page", () => {
    assert.ok(page.includes("## `soak` (default sizes; 2.0 s)\n\n![cost and RSS](benchmarks/soak.png)"));
  });
});
