/**
 * Emits every differential scenario (test/fixtures/sdl-differential/recipes.json applied to its base)
 * as OUT_DIR/<id>.sdl.yaml, for tools/sdl-differential/record.py to judge with the RAES reference.
 * Usage: npx tsx tools/sdl-differential/generate.ts OUT_DIR
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCase, RECIPES } from "../../test/fixtures/sdl-differential/cases.js";

const out = process.argv[2];
if (out === undefined) throw new Error("usage: generate.ts OUT_DIR");
mkdirSync(out, { recursive: true });
const ids = new Set<string>();
for (const recipe of RECIPES) {
  if (ids.has(recipe.id)) throw new Error(`duplicate case id ${recipe.id}`);
  ids.add(recipe.id);
  writeFileSync(join(out, `${recipe.id}.sdl.yaml`), buildCase(recipe));
}
console.error(`wrote ${RECIPES.length} cases to ${out}`);
