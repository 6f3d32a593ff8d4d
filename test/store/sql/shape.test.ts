import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Database from "better-sqlite3";
import { StoreMissingError, StoreNotAStoreError, StoreSchemaDamagedError } from "../../../src/store/index.js";
import { openControlPlaneStore } from "../../../src/store/open.js";
import {
  describeGaps,
  POSTGRES_SHAPE,
  type SchemaShape,
  SQLITE_SHAPE,
  shapeGaps,
} from "../../../src/store/sql/index.js";
import { adminQuery, freshSchema, POSTGRES_TEST_URL, postgresAvailable } from "../pg-available.js";

/** A shape as sorted `table.column`, `trigger:name` and `function:name` entries. */
function entries(shape: SchemaShape): string[] {
  return [
    ...Object.entries(shape.tables).flatMap(([table, columns]) => columns.map((c) => `${table}.${c}`)),
    ...shape.triggers.map((t) => `trigger:${t}`),
    ...shape.functions.map((f) => `function:${f}`),
  ].sort();
}

/** Opens the store at `url` and expects `store.schema-damaged` naming each of `named`. */
async function assertDamaged(url: string, named: readonly (string | RegExp)[], options = {}): Promise<void> {
  await assert.rejects(openControlPlaneStore(url, options), (error: unknown) => {
    assert.ok(error instanceof StoreSchemaDamagedError, String(error));
    assert.equal(error.code, "store.schema-damaged");
    assert.match(error.message, /^control-plane store \S+ is damaged: /);
    assert.match(error.message, /; restore it from a backup, or run on a new store$/);
    for (const name of named)
      assert.match(error.message, typeof name === "string" ? new RegExp(`\\b${name}\\b`) : name);
    return true;
  });
}

const dir = mkdtempSync(join(tmpdir(), "raes-shape-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the schema shape a store checks on open", () => {
  it("names what is missing, the first eight and how many more", () => {
    const found = { columns: ["clocks.segment"], triggers: [], functions: [] };
    const gaps = shapeGaps(POSTGRES_SHAPE, found);
    assert.ok(gaps.includes("column clocks.clock_address"));
    assert.ok(gaps.includes("table tool_actions"));
    assert.ok(!gaps.some((g) => g.startsWith("column tool_actions.")), "a missing table is named once");
    assert.ok(gaps.includes("trigger schedulers_budget_event"));
    assert.ok(gaps.includes("function raes_chain_digests"));
    assert.match(
      describeGaps(gaps),
      new RegExp(`^its schema \\(step \\d+\\) lacks [^,]+(, [^,]+){7} and ${gaps.length - 8} more$`),
    );
    assert.deepEqual(
      shapeGaps(SQLITE_SHAPE, {
        columns: entries(SQLITE_SHAPE),
        triggers: SQLITE_SHAPE.triggers,
        functions: [],
      }),
      [],
    );
  });

  it("SQLite: the shape is exactly what the migrations make", async () => {
    const file = join(dir, "fresh.db");
    await (await openControlPlaneStore(`sqlite:${file}`)).close();
    const db = new Database(file, { readonly: true });
    try {
      const found = [
        ...(db
          .prepare(
            "SELECT m.name || '.' || p.name FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table' AND m.name <> 'sqlite_sequence'",
          )
          .pluck()
          .all() as string[]),
        ...(db
          .prepare("SELECT 'trigger:' || name FROM sqlite_master WHERE type = 'trigger'")
          .pluck()
          .all() as string[]),
      ].sort();
      assert.deepEqual(found, entries(SQLITE_SHAPE));
    } finally {
      db.close();
    }
  });

  it("SQLite: a renamed column, a dropped trigger or table, or a lost migrations table is damage at open", async () => {
    const damage = async (name: string, sql: string) => {
      const file = join(dir, `${name}.db`);
      await (await openControlPlaneStore(`sqlite:${file}`)).close();
      const db = new Database(file);
      db.exec(sql);
      db.close();
      return `sqlite:${file}`;
    };
    const renamed = await damage("renamed", "ALTER TABLE invocations RENAME COLUMN state TO state_x");
    await assertDamaged(renamed, ["column invocations\\.state"]);
    await assertDamaged(renamed, ["column invocations\\.state"], { readOnly: true });
    await assertDamaged(renamed, ["column invocations\\.state"], { create: false });
    await assertDamaged(await damage("trigger", "DROP TRIGGER schedulers_budget_event"), [
      "trigger schedulers_budget_event",
    ]);
    await assertDamaged(
      await damage("services", "DROP TABLE participant_services"),
      ["table participant_services"],
      {
        readOnly: true,
      },
    );
    const lost = await damage("lost", "DROP TABLE schema_migrations");
    for (const options of [{}, { create: false }, { readOnly: true }])
      await assertDamaged(lost, [/its schema_migrations table is missing/], options);
    await assertDamaged(await damage("forgot", "DELETE FROM schema_migrations WHERE version > 20"), [
      /its schema_migrations table says step 21 is not applied, yet what that step adds is there \(/,
    ]);
    // A file with no control plane at all, or a table of the same name of someone else's, is still no
    // store, not a damaged one.
    const empty = join(dir, "empty.db");
    new Database(empty).close();
    await assert.rejects(openControlPlaneStore(`sqlite:${empty}`, { create: false }), StoreMissingError);
    const foreign = join(dir, "foreign.db");
    const other = new Database(foreign);
    other.exec("CREATE TABLE invocations (x)");
    other.close();
    await assert.rejects(openControlPlaneStore(`sqlite:${foreign}`, { create: false }), StoreMissingError);
  });

  it("SQLite: a read-only open reads a store whose trigger is gone (only writes use it); a writable one refuses it", async () => {
    const file = join(dir, "no-trigger.db");
    await (await openControlPlaneStore(`sqlite:${file}`)).close();
    const db = new Database(file);
    db.exec(
      "DROP TRIGGER schedulers_resource_hold; CREATE TABLE mine (a); CREATE VIRTUAL TABLE notes USING fts5(body)",
    );
    db.close();
    await (await openControlPlaneStore(`sqlite:${file}`, { readOnly: true })).close();
    await assertDamaged(`sqlite:${file}`, ["trigger schedulers_resource_hold"]);
  });
});

describe("the schema shape on PostgreSQL", async () => {
  const available = await postgresAvailable("the PostgreSQL schema shape");
  const opts = { skip: available ? false : "POSTGRES UNAVAILABLE" };

  /** A fresh migrated schema, damaged by `sql` (with `S` for the schema's name). */
  async function damaged(sql: string): Promise<{ url: string; drop: () => Promise<void> }> {
    const place = freshSchema("raes_shape");
    await (await openControlPlaneStore(place.url)).close();
    await adminQuery(sql.replaceAll("S.", `${place.schema}.`));
    return place;
  }

  it("the shape is exactly what the migrations make", opts, async () => {
    const place = freshSchema("raes_shape");
    try {
      await (await openControlPlaneStore(place.url)).close();
      const rows = await adminQuery<{ entry: string }>(
        `SELECT c.relname || '.' || a.attname AS entry FROM pg_attribute AS a JOIN pg_class AS c ON c.oid = a.attrelid
           WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
         UNION ALL SELECT 'trigger:' || t.tgname FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
           WHERE c.relnamespace = $1::regnamespace AND NOT t.tgisinternal
         UNION ALL SELECT 'function:' || p.proname FROM pg_proc AS p WHERE p.pronamespace = $1::regnamespace`,
        [place.schema],
      );
      assert.deepEqual(rows.map((r) => r.entry).sort(), entries(POSTGRES_SHAPE));
    } finally {
      await place.drop();
    }
  });

  it(
    "a read-only open reads a store whose trigger is disabled or whose function is gone (only writes use them)",
    opts,
    async () => {
      const place = await damaged(
        "ALTER TABLE S.schedulers DISABLE TRIGGER schedulers_budget_event; DROP FUNCTION S.raes_chain_digests",
      );
      try {
        await (await openControlPlaneStore(place.url, { readOnly: true })).close();
      } finally {
        await place.drop();
      }
    },
  );

  it(
    "finds the store by its search path, whatever the schema's name or an empty schema before it",
    opts,
    async () => {
      const quoted = `Raes-${process.pid}`;
      const empty = `raes_empty_${process.pid}`;
      const inPath = (path: string) => {
        const url = new URL(POSTGRES_TEST_URL);
        url.searchParams.set("options", `-c search_path=${path}`);
        return url.href;
      };
      await adminQuery(`CREATE SCHEMA "${quoted}"`);
      await adminQuery(`CREATE SCHEMA ${empty}`);
      try {
        // A quoted, mixed-case schema, named only by the URL's search path.
        const url = inPath(`"${quoted}"`);
        await (await openControlPlaneStore(url)).close();
        await (await openControlPlaneStore(url)).close();
        await (await openControlPlaneStore(url, { readOnly: true })).close();
        // An empty schema first on the path (as a role's own "$user" schema would be): the store is
        // the one its migrations table resolves to, and no open makes a second one in the empty schema.
        for (const options of [{ readOnly: true }, { create: false }, {}])
          await (await openControlPlaneStore(inPath(`${empty},"${quoted}"`), options)).close();
        const made = await adminQuery(`SELECT count(*)::integer AS n FROM pg_tables WHERE schemaname = $1`, [
          empty,
        ]);
        assert.equal(made[0]?.n, 0, "nothing was created in the empty schema");
        // A table of the user's own, named as one of the store's, earlier on the path: the store's
        // statements would use it, and the open says so (not that the store lacks its columns).
        await adminQuery(`CREATE TABLE ${empty}.leases (mine text)`);
        for (const options of [{ readOnly: true }, {}])
          await assertDamaged(
            inPath(`${empty},"${quoted}"`),
            [
              new RegExp(
                `lacks table leases of its own \\(the search path finds ${empty}\\.leases first\\); restore`,
              ),
            ],
            options,
          );
      } finally {
        await adminQuery(`DROP SCHEMA "${quoted}" CASCADE`);
        await adminQuery(`DROP SCHEMA ${empty} CASCADE`);
      }
    },
  );

  it(
    "a schema holding another tool's schema_migrations is not a store (a schema of its own is)",
    opts,
    async () => {
      const place = freshSchema("raes_foreign");
      await adminQuery(`CREATE SCHEMA ${place.schema}`);
      await adminQuery(
        `CREATE TABLE ${place.schema}.schema_migrations (version bigint PRIMARY KEY, dirty boolean)`,
      );
      try {
        for (const options of [{}, { readOnly: true }, { create: false }])
          await assert.rejects(openControlPlaneStore(place.url, options), (error: unknown) => {
            assert.ok(error instanceof StoreNotAStoreError, String(error));
            assert.match(error.message, /its schema_migrations table is another tool's .* \?schema=raes$/);
            return true;
          });
      } finally {
        await place.drop();
      }
    },
  );

  for (const [label, sql, named, options] of [
    [
      "a renamed column",
      "ALTER TABLE S.invocations RENAME COLUMN state TO state_x",
      ["column invocations\\.state"],
      {},
    ],
    [
      "a renamed column, read-only",
      "ALTER TABLE S.tool_actions RENAME COLUMN phase TO p",
      ["column tool_actions\\.phase"],
      { readOnly: true },
    ],
    ["a dropped function", "DROP FUNCTION S.raes_chain_digests", ["function raes_chain_digests"], {}],
    [
      "a disabled trigger",
      "ALTER TABLE S.schedulers DISABLE TRIGGER schedulers_resource_hold",
      [/trigger schedulers_resource_hold \(disabled\)/],
      {},
    ],
    [
      "a trigger that fires on replicas only",
      "ALTER TABLE S.schedulers ENABLE REPLICA TRIGGER schedulers_budget_event",
      [/trigger schedulers_budget_event \(disabled\)/],
      {},
    ],
    [
      "an emptied history head",
      "DELETE FROM S.history_head",
      [/its history_head table does not hold its one row/],
      {},
    ],
    [
      "a dropped table",
      "DROP TABLE S.participant_services",
      ["table participant_services"],
      { create: false },
    ],
    [
      "a lost migrations table",
      "DROP TABLE S.schema_migrations",
      [/its schema_migrations table is missing/],
      {},
    ],
    [
      "a lost migrations table, read-only",
      "DROP TABLE S.schema_migrations",
      [/its schema_migrations table is missing/],
      { readOnly: true },
    ],
    [
      "forgotten steps",
      "DELETE FROM S.schema_migrations WHERE version > 20",
      [/says step 21 is not applied, yet what that step adds is there \(/],
      {},
    ],
  ] as const) {
    it(`${label} is damage at open`, opts, async () => {
      const place = await damaged(sql);
      try {
        await assertDamaged(place.url, named, options);
      } finally {
        await place.drop();
      }
    });
  }
});
