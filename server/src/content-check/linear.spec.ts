/**
 * No pattern of the content check or the ingest backtracks super-linearly (docs/content-check.md,
 * "Linear scanning"). Every regular expression written in those folders is checked by recheck's
 * automaton (deterministic: no fuzzing, no time limit), with counted repeats read as unbounded ones:
 * a bound k only turns n² into n·k, which is how 2 MB of `url(` held one CSS regex for 31.8 s.
 * A pattern proven linear is recorded (linear-verdicts.json, with recheck's version): the same
 * pattern under the same recheck is not proven again, a new or changed one is, and one proven but
 * not recorded fails until it is (`LINEAR_RECORD=1`).
 * Then the scanners that replaced the dangerous patterns meet the inputs that broke them.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { check } from 'recheck';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { analyzeSite } from './analyze.js';
import { cssReferences, cssRules, hiddenBy, hiddenSelectors } from './css.js';
import { scamSignals } from './text.js';

const SRC = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['content-check', 'ingest'];

/**
 * Patterns recheck proved linear, as checked (`/source/flags` after countedAsUnbounded), with the
 * version that proved them: proving them all again took 40-65 s of a CI run's two cores (a JVM).
 */
const RECORD = fileURLToPath(new URL('./linear-verdicts.json', import.meta.url));
const RECHECK_VERSION = (createRequire(import.meta.url)('recheck/package.json') as { version: string })
  .version;

interface RecordedVerdicts {
  recheck: string;
  safe: string[];
}

function readRecord(): RecordedVerdicts {
  try {
    return JSON.parse(fs.readFileSync(RECORD, 'utf8')) as RecordedVerdicts;
  } catch {
    return { recheck: '', safe: [] };
  }
}

interface Pattern {
  where: string;
  source: string;
  flags: string;
}

/** Every regex literal of the folders' code (specs aside), and every `new RegExp` not built from one. */
function patternsOf(folder: string): { patterns: Pattern[]; dynamic: string[] } {
  const patterns: Pattern[] = [];
  const dynamic: string[] = [];
  const dir = path.join(SRC, folder);
  for (const name of fs.readdirSync(dir, { recursive: true }) as string[]) {
    if (!name.endsWith('.ts') || name.endsWith('.spec.ts')) continue;
    const file = path.join(dir, name);
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${folder}/${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node) => {
      if (ts.isRegularExpressionLiteral(node)) {
        const slash = node.text.lastIndexOf('/');
        patterns.push({
          where: where(node),
          source: node.text.slice(1, slash),
          flags: node.text.slice(slash + 1),
        });
      } else if (
        (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'RegExp'
      ) {
        // Built from a literal's `.source` (checked as that literal) is fine; anything else is not checked.
        const first = node.arguments?.[0];
        if (!first || !(ts.isPropertyAccessExpression(first) && first.name.text === 'source'))
          dynamic.push(where(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { patterns, dynamic };
}

/** `x{m,n}` as `x*` or `x+` (outside character classes and escapes); `{0,1}`/`{1}` stay as they are. */
export function countedAsUnbounded(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      out += c + (source[i + 1] ?? '');
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else {
      const counted = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i)) : null;
      if (!counted) {
        out += c;
        continue;
      }
      const min = Number(counted[1]);
      const max = counted[2] === undefined ? min : counted[3] === '' ? Infinity : Number(counted[3]);
      out += max <= 1 ? (min === 0 ? '?' : '') : min === 0 ? '*' : '+';
      i += counted[0].length - 1;
    }
  }
  return out;
}

describe('the patterns of the content check and the ingest', () => {
  const found = FOLDERS.map(patternsOf);
  const patterns = found.flatMap((f) => f.patterns);

  it('reads counted repeats as unbounded ones', () => {
    expect(countedAsUnbounded(String.raw`a{1,2048}[{1,2}]\{3}b{0,1}c{2}d{0,}e{1}`)).toBe(
      String.raw`a+[{1,2}]\{3}b?c+d*e`,
    );
  });

  it('are all found, and none is built at run time from something unchecked', () => {
    expect(patterns.length).toBeGreaterThan(60);
    expect(found.flatMap((f) => f.dynamic)).toEqual([]);
  });

  it('run in linear time whatever the input (recheck, automaton)', { timeout: 600_000 }, async () => {
    const record = readRecord();
    const recorded = new Set(record.recheck === RECHECK_VERSION ? record.safe : []);
    const checked = (p: Pattern) => `/${countedAsUnbounded(p.source)}/${p.flags}`;
    const proven: string[] = [];
    const verdicts = await Promise.all(
      patterns.map(async (p) => {
        if (recorded.has(checked(p))) return `${p.where}: safe`;
        const result = await check(countedAsUnbounded(p.source), p.flags, {
          checker: 'automaton',
          timeout: null,
        });
        if (result.status === 'safe') proven.push(checked(p));
        const complexity = result.status === 'vulnerable' ? ` (${result.complexity.summary})` : '';
        const error = result.status === 'unknown' ? ` (${result.error.kind})` : '';
        return `${p.where} /${p.source}/${p.flags}: ${result.status}${complexity}${error}`;
      }),
    );
    expect(verdicts.filter((v) => !/: safe$/.test(v))).toEqual([]);
    if (process.env.LINEAR_RECORD === '1') {
      const safe = [...new Set(patterns.map(checked))].sort();
      fs.writeFileSync(RECORD, `${JSON.stringify({ recheck: RECHECK_VERSION, safe }, null, 2)}\n`);
    } else {
      // Proven now but not recorded: proven again by every run until it is.
      expect(
        proven,
        'record them: LINEAR_RECORD=1 npx vitest run --project server-sqlite src/content-check/linear.spec.ts',
      ).toEqual([]);
    }
  });

  it('knows a super-linear one when it sees it', { timeout: 120_000 }, async () => {
    // The CSS pattern that ran for 31.8 s, without its back-reference (which the automaton lacks).
    const result = await check(countedAsUnbounded(String.raw`\burl\(\s*['"]?([^'")\s]{1,2048})\s*\)`), 'gi', {
      checker: 'automaton',
      timeout: null,
    });
    expect(result.status).toBe('vulnerable');
  });
});

/** Generous: each of these took from 30 s to hours before (docs/content-check.md). */
const BOUND_MS = 10_000;
const MB2 = 2 * 1024 * 1024;

function timed<T>(work: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = work();
  return { value, ms: performance.now() - start };
}

const site = (pathName: string, extension: string, text: string) =>
  analyzeSite([{ path: pathName, size: text.length, extension, text, complete: true }], null, {
    maxMsPerFile: 600_000,
  });

describe('the scanners on hostile input', () => {
  it('read the references of a stylesheet as the patterns did', () => {
    const css = `@import "a.css"; @import url( b.css ); @IMPORT url('c.css');
      .x { background: url("d.png") } .y { background: URL( e.png ) } .z { src: url('f.woff' ) }
      .bad { background: url("g.png) } .none { background: url() } .paren { background: url(h(1).png) }`;
    expect(cssReferences(css).map((r) => `${r.kind}:${r.value}`)).toEqual([
      'import:a.css',
      'import:b.css',
      'import:c.css',
      'url:d.png',
      'url:e.png',
      'url:f.woff',
    ]);
    expect(hiddenSelectors('.a{display:none} #b, .c { visibility : hidden } .d{color:red} .e{{x}')).toEqual([
      '.a',
      '#b',
      '.c',
    ]);
    expect(hiddenBy('transform: rotate(3deg) scale(0)')).toBe('缩放为 0');
    expect(hiddenBy('scale(0); transform: rotate(3deg)')).toBeNull();
  });

  it.each([
    ['2 MB of url(', 'url('.repeat(MB2 / 4)],
    ['url( and 2 MB of spaces', `url(${' '.repeat(MB2)}`],
    ['2 MB of url(a', 'url(a'.repeat(MB2 / 5)],
    ['2 MB of url(" without a closing quote', 'url("a'.repeat(MB2 / 6)],
    ['2 MB of @import', '@import'.repeat(MB2 / 7)],
    ['@import x@import… without a space', `@import ${'x@import'.repeat(MB2 / 8)}`],
    ['2 MB of {', '{'.repeat(MB2)],
    ['2 MB of a{b', 'a{b'.repeat(MB2 / 3)],
    ['2 MB of transform:', 'transform:'.repeat(MB2 / 10)],
  ])('a stylesheet of %s', (_, css) => {
    const { ms } = timed(() => {
      site('a.css', 'css', css);
      hiddenSelectors(css);
      cssRules(css);
    });
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('an inline style of 2 MB of transform: with no ;', () => {
    const { value, ms } = timed(() => hiddenBy(`transform:${' scale(1)'.repeat(MB2 / 9)}`));
    expect(value).toBeNull();
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each([
    ['qq and 2 MB of spaces', `qq${' '.repeat(MB2)}`],
    ['微信 and 2 MB of spaces', `微信${' '.repeat(MB2)}x`],
    ['2 MB of qq 号', 'qq 号 '.repeat(MB2 / 5)],
  ])('page text of %s', (_, text) => {
    const { ms } = timed(() => scamSignals(text, []));
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('still finds a contact ID', () => {
    expect(scamSignals('加我 qq 群号：12345678', []).extras).toEqual(['联系方式（微信/QQ/Telegram 号）']);
    expect(scamSignals('微信号: abcdef1', []).extras).toEqual(['联系方式（微信/QQ/Telegram 号）']);
  });

  it.each([
    ["eval(' and 2 MB of base64 without a closing quote", `eval('${'A'.repeat(MB2)}`],
    ['2 MB of eval(', 'eval('.repeat(MB2 / 5)],
    ['2 MB of String.fromCharCode(1,', `String.fromCharCode(${'1,'.repeat(MB2 / 2)}`],
    ['2 MB of \\x4', '\\x4'.repeat(MB2 / 3)],
    ['2 MB of "//a', '"//a'.repeat(MB2 / 4)],
  ])('a script of %s', (_, code) => {
    const { ms } = timed(() => site('a.js', 'js', code));
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it.each([
    ['2 MB of <div style="transform:', `<div style="${'transform:'.repeat(MB2 / 10)}">`],
    ['2 MB of url( in a <style>', `<style>${'url('.repeat(MB2 / 4)}</style>`],
    [
      '2 MB of <meta http-equiv=refresh content="url=',
      `<meta http-equiv="refresh" content="url=${' '.repeat(MB2)}">`,
    ],
  ])('a page of %s', (_, html) => {
    const { ms } = timed(() => site('index.html', 'html', html));
    expect(ms).toBeLessThan(BOUND_MS);
  });
});
