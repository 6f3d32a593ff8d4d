import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { printedCommand } from "../../src/printed/index.js";
import { raes } from "../cli/cli.js";
import { afterVerify, OUTSIDE_HISTORY_TAMPERS, TAMPERABLE_STORES } from "../helpers/tampered-store.js";
import { postgresAvailable } from "../store/pg-available.js";

const DIR = mkdtempSync(join(tmpdir(), "raes-badge-verify-"));
after(() => rmSync(DIR, { recursive: true, force: true }));

/** The page's text of the badge, its entities undone. */
function badge(html: string): { state: string; text: string } {
  const found = /<p class="chain [a-z]+" data-chain="([a-z]+)"[^>]*>(.*?)<\/p>/.exec(html);
  assert.ok(found, "the page shows a chain badge");
  const text = (found[2] ?? "")
    .replaceAll(/<[^>]*>/g, "")
    .replaceAll("&#39;", "'")
    .replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
  return { state: found[1] ?? "", text };
}

for (const kind of TAMPERABLE_STORES) {
  describe(`the timeline's badge agrees with raes verify --store over ${kind.name}`, async () => {
    if (kind.name === "PostgreSQL" && !(await postgresAvailable("timeline badge tampering"))) return;

    it("says verified, with the operator chain, where raes verify exits 0", () =>
      afterVerify(kind, DIR, undefined, async (url, verified) => {
        assert.equal(verified.code, 0, verified.stdout + verified.stderr);
        const page = join(DIR, "untouched.html");
        const drawn = await raes(["history", "--html", page, "--store", url]);
        assert.equal(drawn.code, 0, drawn.stderr);
        const shown = badge(readFileSync(page, "utf8"));
        assert.equal(shown.state, "verified");
        assert.match(shown.text, /2 operator decisions, operator chain intact/);
      }));

    for (const tamper of OUTSIDE_HISTORY_TAMPERS) {
      it(`says broken, naming what raes verify names, after ${tamper.name}`, () =>
        afterVerify(kind, DIR, tamper, async (url, verified) => {
          assert.equal(verified.code, 1, verified.stdout + verified.stderr);
          const line = verified.stdout.trim();
          assert.ok(line.includes(tamper.says), line);
          const page = join(DIR, "tampered.html");
          const drawn = await raes(["history", "--html", page, "--store", url]);
          assert.equal(drawn.code, 0, drawn.stderr);
          const html = readFileSync(page, "utf8");
          const shown = badge(html);
          assert.equal(shown.state, "broken");
          // The badge's detail is raes verify's line after the store's name, word for word.
          const detail = line.slice(line.indexOf(": ") + 2);
          // With the command that says more, for this store, runnable as printed.
          const command = printedCommand(["verify", "--store", url], []);
          assert.ok(shown.text.startsWith(`Evidence does not verify: ${detail}. Run `), shown.text);
          assert.ok(shown.text.endsWith(` ${command} for details.`), shown.text);
          assert.match(html, /<code class="command">[^<]* verify --store [^<]*<\/code>/);
        }));
    }
  });
}
