import assert from "node:assert/strict";
import { test } from "node:test";
import { withSearchPath } from "../../src/store/postgres/store.js";

test("every store connection plans its prepared statements generically, beside the URL's own options and the schema", () => {
  const url = "postgres://u:p@127.0.0.1:5432/test?options=-c%20work_mem%3D4MB&application_name=x";
  const { connectionString, options } = withSearchPath(url, "raes_s");
  assert.equal(options, "-c work_mem=4MB -c search_path=raes_s -c plan_cache_mode=force_generic_plan");
  assert.equal(new URL(connectionString).searchParams.get("options"), null);
  assert.equal(new URL(connectionString).searchParams.get("application_name"), "x");
  assert.equal(
    withSearchPath("postgres://127.0.0.1/test", undefined).options,
    "-c plan_cache_mode=force_generic_plan",
  );
});
