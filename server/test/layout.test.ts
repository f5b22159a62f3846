/**
 * Where SQL may be written (docs/architecture.md "Server layers"): every statement lives in
 * repositories/, db/ (engine plumbing: connection, migrations, the readiness probe, the copy
 * between engines) or search/ (the showcase search's SQL and index maintenance); services own the
 * transactions and call those. dependency-cruiser can't see npm packages in this repository's
 * graph, so this test reads the sources: a query-builder call, a sql`` template or a value import
 * of kysely anywhere else fails it. The planner search/plan.ts stays free of SQL too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../src');
const ALLOWED = /^(repositories|db|search)\//;
const PURE = new Set(['search/plan.ts']);
const STATEMENT =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql\s*(<[^>]*>)?`|\bsql\.(raw|ref|table|id|lit|join|val)\(/;
const KYSELY_VALUE_IMPORT = /^import\s+(?!type\b)[^;]*\{([^}]*)\}[^;]*from\s+'kysely'/m;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sources(file);
    return /\.tsx?$/.test(e.name) && !/\.spec\.ts$/.test(e.name) ? [file] : [];
  });
}

/** The places that write SQL outside the allowed folders, as "file:line: text". */
function misplacedSql(root: string): string[] {
  const found: string[] = [];
  for (const file of sources(root)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (ALLOWED.test(rel) && !PURE.has(rel)) continue;
    const text = fs.readFileSync(file, 'utf8');
    text.split('\n').forEach((line, i) => {
      if (STATEMENT.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
    const imported = KYSELY_VALUE_IMPORT.exec(text);
    // `import { type A, type B } from 'kysely'` imports types only.
    if (imported && imported[1]!.split(',').some((name) => name.trim() && !/^type\s/.test(name.trim())))
      found.push(`${rel}: imports a value from kysely`);
  }
  return found;
}

describe('layout', () => {
  it('keeps every SQL statement in repositories/, db/ or search/ (the planner excepted)', () => {
    expect(misplacedSql(SRC)).toEqual([]);
  });

  it('finds a statement written elsewhere', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-layout-'));
    try {
      fs.mkdirSync(path.join(root, 'services'));
      fs.mkdirSync(path.join(root, 'repositories'));
      fs.mkdirSync(path.join(root, 'search'));
      fs.writeFileSync(
        path.join(root, 'services/a.ts'),
        "import { sql } from 'kysely';\nawait db.selectFrom('users').execute();\nawait sql`select 1`.execute(db);\n",
      );
      fs.writeFileSync(path.join(root, 'services/b.ts'), "import type { Selectable } from 'kysely';\n");
      fs.writeFileSync(path.join(root, 'repositories/c.ts'), "await trx.deleteFrom('users').execute();\n");
      fs.writeFileSync(path.join(root, 'search/plan.ts'), 'const q = sql<number>`select 1`;\n');
      expect(misplacedSql(root).sort()).toEqual(
        [
          'search/plan.ts:1: const q = sql<number>`select 1`;',
          "services/a.ts:2: await db.selectFrom('users').execute();",
          'services/a.ts:3: await sql`select 1`.execute(db);',
          'services/a.ts: imports a value from kysely',
        ].sort(),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
