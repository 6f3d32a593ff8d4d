/**
 * Builds one TypeScript test child into a single JavaScript file that plain node runs: the test-side
 * modules it imports are bundled in, every `src/` module is imported from its `dist/` build (the same
 * code `npm test` built a moment before), and packages stay external. Each bundled module keeps its
 * own `import.meta.url`, so paths it computes from its location still resolve in the repository.
 *
 * Usage: `node --import tsx test/helpers/compiled/build.ts SCRIPT OUT META`. Run by `compiled.ts`
 * when the bundle is missing or one of its inputs changed.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..", "..", "..");
const SRC = join(ROOT, "src") + sep;
const TEST = join(ROOT, "test") + sep;

/** `src/a/b.js` (as a source imports it) becomes an external import of `dist/a/b.js`. */
const srcFromDist: Plugin = {
  name: "src-from-dist",
  setup(on) {
    on.onResolve({ filter: /^\.\.?\// }, (args) => {
      const target = resolve(args.resolveDir, args.path);
      if (!target.startsWith(SRC)) return undefined;
      const built = join(ROOT, "dist", relative(SRC, target)).replace(/\.ts$/, ".js");
      return { path: pathToFileURL(built).href, external: true };
    });
  },
};

/** Each test module sees its own file as `import.meta.url`, as it does under tsx. */
const ownUrl: Plugin = {
  name: "own-import-meta-url",
  setup(on) {
    on.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(TEST)) return undefined;
      const text = readFileSync(args.path, "utf8").replaceAll(
        "import.meta.url",
        JSON.stringify(pathToFileURL(args.path).href),
      );
      return { contents: text, loader: "ts" };
    });
  },
};

const [script, out, meta] = process.argv.slice(2);
if (script === undefined || out === undefined || meta === undefined) {
  throw new Error("usage: build.ts SCRIPT OUT META");
}
const result = await build({
  entryPoints: [script],
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  outfile: `${out}.${process.pid}.tmp`,
  metafile: true,
  sourcemap: "inline",
  logLevel: "error",
  plugins: [srcFromDist, ownUrl],
});
const inputs = Object.keys(result.metafile.inputs).map((input) => resolve(input));
renameSync(`${out}.${process.pid}.tmp`, out);
writeFileSync(`${meta}.${process.pid}.tmp`, JSON.stringify({ script: resolve(script), inputs }));
renameSync(`${meta}.${process.pid}.tmp`, meta);
