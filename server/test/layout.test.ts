/**
 * Where SQL may be written (docs/architecture.md "Server layers"): every statement lives in
 * repositories/, db/ (engine plumbing: connection, migrations, the readiness probe, the copy
 * between engines) or search/ (the showcase search's SQL and index maintenance); services own the
 * transactions and call those. dependency-cruiser can't see npm packages in this repository's
 * graph, so this test reads the sources: a query-builder call, a sql`` template, a raw driver call
 * (`.prepare(`, `.query(`, `.pragma(`, `.exec('…')`) or a value import of kysely, pg or
 * better-sqlite3 anywhere else fails it. The planner search/plan.ts stays free of SQL too.
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
/**
 * A statement handed to a driver: better-sqlite3's prepare/pragma/exec, pg's query. A RegExp's
 * `.exec(text)` and a Redis pipeline's `.exec()` are not: exec counts when given SQL (a string or
 * a name that says so).
 */
const DRIVER_CALL = /\.(prepare|query|pragma)\(|\.exec\(\s*(['"`]|\w*(sql|SQL)\w*\s*[,)])/;
const DRIVER_IMPORT = /^import\s+(?!type\b)[^;]*from\s+'(pg|better-sqlite3)'/m;

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
      if (STATEMENT.test(line) || DRIVER_CALL.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
    const imported = KYSELY_VALUE_IMPORT.exec(text);
    // `import { type A, type B } from 'kysely'` imports types only.
    if (imported && imported[1]!.split(',').some((name) => name.trim() && !/^type\s/.test(name.trim())))
      found.push(`${rel}: imports a value from kysely`);
    const driver = DRIVER_IMPORT.exec(text);
    if (driver) found.push(`${rel}: imports the ${driver[1]} driver`);
  }
  return found;
}

const REPO = path.resolve(import.meta.dirname, '../..');
const CODE_ROOTS = [
  'server/src',
  'server/test',
  'web/src',
  'web/test',
  'packages',
  'e2e',
  'scripts',
  'bench',
];
/** `docs/NAME.md "Label"`, the label possibly broken over comment lines. */
const CITATION = /docs\/([a-z0-9-]+\.md)(?:\s|\*|\/\/)*"([^"]{1,200})"/g;

function codeFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name === 'fixtures') return [];
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return codeFiles(file);
    return /\.(ts|tsx|mjs|cjs|js)$/.test(e.name) ? [file] : [];
  });
}

/**
 * The labels a doc can be cited by: each heading (also without a trailing parenthesis, as in
 * "Chaos (`npm run bench:chaos`)") and each paragraph or list item's bold lead-in (**Label**).
 */
function labelsOf(markdown: string): Set<string> {
  const labels = new Set<string>();
  for (const line of markdown.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const text = heading[1]!.trim();
      labels.add(text);
      labels.add(text.replace(/\s*\(.*\)\s*$/, ''));
    }
    const bold = /^\s*(?:[-*]\s+)?\*\*([^*]+)\*\*/.exec(line);
    if (bold) labels.add(bold[1]!.trim());
  }
  return labels;
}

/** Citations of a docs/ label that the doc doesn't have, as "file: docs/X.md "Label"". */
function missingCitations(repo: string, roots: string[]): string[] {
  const docs = new Map<string, Set<string> | null>();
  const labels = (doc: string) => {
    if (!docs.has(doc)) {
      const file = path.join(repo, 'docs', doc);
      docs.set(doc, fs.existsSync(file) ? labelsOf(fs.readFileSync(file, 'utf8')) : null);
    }
    return docs.get(doc);
  };
  const missing: string[] = [];
  for (const file of roots.flatMap((root) => codeFiles(path.join(repo, root)))) {
    // This file's own examples cite labels that don't exist on purpose.
    if (file === import.meta.filename) continue;
    for (const m of fs.readFileSync(file, 'utf8').matchAll(CITATION)) {
      const label = m[2]!.replace(/\s*\n\s*(\*|\/\/)?\s*/g, ' ').trim();
      if (!labels(m[1]!)?.has(label))
        missing.push(`${path.relative(repo, file).split(path.sep).join('/')}: docs/${m[1]} "${label}"`);
    }
  }
  return missing;
}

describe('layout', () => {
  it('keeps every SQL statement and driver call in repositories/, db/ or search/ (the planner excepted)', () => {
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
      fs.mkdirSync(path.join(root, 'backup'));
      fs.writeFileSync(
        path.join(root, 'backup/d.ts'),
        [
          "import pg from 'pg';",
          "import type SqliteDatabase from 'better-sqlite3';",
          "const names = copy.prepare('select name from kysely_migration').pluck().all();",
          "await client.query('commit');",
          'copy.exec(REFERENCED_SQL);',
          "copy.pragma('journal_mode = DELETE');",
          'const m = /a(b)/.exec(text);',
          'await redis.pipeline().exec();',
        ].join('\n'),
      );
      fs.writeFileSync(path.join(root, 'repositories/c.ts'), "await trx.deleteFrom('users').execute();\n");
      fs.writeFileSync(path.join(root, 'search/plan.ts'), 'const q = sql<number>`select 1`;\n');
      expect(misplacedSql(root).sort()).toEqual(
        [
          'search/plan.ts:1: const q = sql<number>`select 1`;',
          "services/a.ts:2: await db.selectFrom('users').execute();",
          'services/a.ts:3: await sql`select 1`.execute(db);',
          'services/a.ts: imports a value from kysely',
          "backup/d.ts:3: const names = copy.prepare('select name from kysely_migration').pluck().all();",
          "backup/d.ts:4: await client.query('commit');",
          'backup/d.ts:5: copy.exec(REFERENCED_SQL);',
          "backup/d.ts:6: copy.pragma('journal_mode = DELETE');",
          'backup/d.ts: imports the pg driver',
        ].sort(),
      );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('cites only docs labels that exist (docs/X.md "Heading" in a comment)', () => {
    expect(missingCitations(REPO, CODE_ROOTS)).toEqual([]);
  });

  it('finds a citation of a label a doc does not have', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-cite-'));
    try {
      fs.mkdirSync(path.join(root, 'docs'));
      fs.mkdirSync(path.join(root, 'src'));
      fs.writeFileSync(
        path.join(root, 'docs/a.md'),
        '# A\n\n## Chaos (`npm run bench:chaos`)\n\n- **Hash cache** (`cache.ts`): kept.\n',
      );
      fs.writeFileSync(
        path.join(root, 'src/x.ts'),
        [
          '// docs/a.md "Chaos", docs/a.md "Hash cache", docs/a.md "A"',
          '/** As docs/a.md',
          ' * "Chaos (`npm run',
          ' * bench:chaos`)" says; docs/a.md "Gone" and docs/b.md "A" do not exist. */',
        ].join('\n'),
      );
      expect(missingCitations(root, ['src'])).toEqual([
        'src/x.ts: docs/a.md "Gone"',
        'src/x.ts: docs/b.md "A"',
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
