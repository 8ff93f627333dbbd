// Keeps docs/guides/migrating-from-claude-code.md true by behaviour: every row of its table has a check
// in tests/support/migration_checks.ts that runs Blade with what the row names and asserts what the
// row says ("same": what Claude Code does; "different": the difference it describes; "not yet": the
// run goes on and says so), and every check has its row. Flags are checked by what they do, never by
// their presence in `blade --help`. Each row is its own test, named after it.

import assert from "node:assert/strict";
import { CHECKS, type Row } from "./support/migration_checks.ts";
import { cleanProbes } from "./support/migration_probe.ts";

const GUIDE = new URL("../docs/guides/migrating-from-claude-code.md", import.meta.url);

function rows(text: string): Row[] {
  const out: Row[] = [];
  for (const line of text.split("\n")) {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    if (cells.length !== 4 || cells[0] === "Kind" || cells[0]!.startsWith("---")) continue;
    const names = [...cells[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    out.push({ kind: cells[0]!, name: cells[1]!, names, status: cells[2]! });
  }
  return out;
}

const TABLE = rows(await Deno.readTextFile(GUIDE));

Deno.test("migration guide: every row has a behaviour check, every check a row", () => {
  assert.ok(TABLE.length > 100, `the table has its rows (${TABLE.length})`);
  for (const row of TABLE) {
    assert.ok(["same", "different", "not yet"].includes(row.status), `status of ${row.name}: ${row.status}`);
  }
  const listed = TABLE.map((r) => `${r.kind} ${r.name}`);
  const checked = Object.entries(CHECKS).flatMap(([kind, checks]) =>
    Object.keys(checks).map((n) => `${kind} ${n}`)
  );
  assert.deepEqual(listed.filter((r) => !checked.includes(r)), [], "rows without a check");
  assert.deepEqual(checked.filter((c) => !listed.includes(c)), [], "checks without a row");
});

for (const row of TABLE) {
  const check = CHECKS[row.kind]?.[row.name];
  if (check === undefined) continue;
  Deno.test(`migration guide: ${row.kind} ${row.name} (${row.status})`, async () => {
    try {
      await check(row);
    } finally {
      await cleanProbes();
    }
  });
}

Deno.test("migration guide: the shared runs' folders are removed", async () => {
  await cleanProbes({ all: true });
});
