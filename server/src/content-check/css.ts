/**
 * CSS: @import and url() references (root-absolute, missing files, other hosts), and what hides an
 * element. Everything here is one forward pass over the text (docs/content-check.md, "Linear
 * scanning"): a stylesheet of 2 MB of `url(` once held one regex for half a minute.
 */
import type { FileContext } from './context.js';
import { reference } from './references.js';

/** The longest reference read (a longer one is not a reference anyone writes). */
const MAX_REFERENCE = 2048;
/** What an @import or url() starts with; each attempt then reads forward from it. */
const CSS_REFERENCE_START = /@import|\burl\(/gi;

export function scanCss(ctx: FileContext, css: string, base: number) {
  for (const ref of cssReferences(css)) {
    const target = reference(ctx, ref.value, base + ref.at);
    if (ref.kind === 'import' && target.kind === 'external') {
      ctx.domain('stylesheets', target.host);
      ctx.add('html.external-stylesheet', { domain: target.host }, base + ref.at);
    }
  }
}

export interface CssReference {
  kind: 'import' | 'url';
  value: string;
  /** Offset of `@import` or `url(` in the text. */
  at: number;
}

/**
 * The stylesheet's references in order: `@import "x"`, `@import url(x)` and `url(x)` (quoted or
 * not). A failed attempt resumes right after its keyword and a found one after its end, and an
 * attempt stops at the next `(`, quote or space, so each character is read a bounded number of times.
 */
export function cssReferences(css: string): CssReference[] {
  const out: CssReference[] = [];
  const start = new RegExp(CSS_REFERENCE_START.source, CSS_REFERENCE_START.flags);
  for (let m = start.exec(css); m; m = start.exec(css)) {
    const at = m.index;
    const found = m[0][0] === '@' ? importAt(css, at + m[0].length) : urlAt(css, at + m[0].length);
    if (!found) continue;
    out.push({ kind: m[0][0] === '@' ? 'import' : 'url', value: found.value, at });
    start.lastIndex = Math.max(start.lastIndex, found.end);
  }
  return out;
}

const isSpace = (c: string | undefined) =>
  c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

function skipSpaces(s: string, i: number): number {
  while (isSpace(s[i])) i++;
  return i;
}

/** Characters up to one of `stops` (or a space), at most MAX_REFERENCE; null when none. */
function token(s: string, i: number, stops: string): { value: string; end: number } | null {
  let j = i;
  while (j < s.length && j - i < MAX_REFERENCE && !isSpace(s[j]) && !stops.includes(s[j]!)) j++;
  return j > i ? { value: s.slice(i, j), end: j } : null;
}

/** After `@import`: spaces, then `url(`, a quote or neither, then the target. */
function importAt(css: string, i: number): { value: string; end: number } | null {
  const afterSpaces = skipSpaces(css, i);
  if (afterSpaces === i) return null;
  i = afterSpaces;
  if (css.slice(i, i + 4).toLowerCase() === 'url(') i = skipSpaces(css, i + 4);
  if (css[i] === '"' || css[i] === "'") i++;
  return token(css, i, `'")(;`);
}

/** After `url(`: spaces, an optional quote, the target, the same quote, spaces and `)`. */
function urlAt(css: string, i: number): { value: string; end: number } | null {
  i = skipSpaces(css, i);
  const quote = css[i] === '"' || css[i] === "'" ? css[i]! : '';
  const found = token(css, i + quote.length, `'")(`);
  if (!found) return null;
  let end = found.end;
  if (quote) {
    if (css[end] !== quote) return null;
    end++;
  }
  end = skipSpaces(css, end);
  return css[end] === ')' ? { value: found.value, end: end + 1 } : null;
}

/** Class and id selectors a stylesheet hides (display:none, visibility:hidden): for hidden frames. */
export function hiddenSelectors(css: string): string[] {
  const out: string[] = [];
  for (const rule of cssRules(css)) {
    if (!isHiddenStyle(rule.body)) continue;
    for (const sel of rule.selector.split(',')) {
      const simple = /^\s*([.#][-\w]+)\s*$/.exec(sel);
      if (simple) out.push(simple[1]!);
    }
  }
  return out;
}

/**
 * `selector { body }` pairs without nested braces, read brace to brace: the selector is at most
 * the 300 characters before `{`, the body at most 2,000 (a longer one is not looked into).
 */
export function cssRules(css: string): Array<{ selector: string; body: string }> {
  const out: Array<{ selector: string; body: string }> = [];
  let previous = -1;
  for (let open = nextBrace(css, 0); open !== -1; ) {
    if (css[open] !== '{') {
      previous = open;
      open = nextBrace(css, open + 1);
      continue;
    }
    const close = nextBrace(css, open + 1);
    const selector = css.slice(Math.max(previous + 1, open - 300), open);
    if (close !== -1 && css[close] === '}' && close - open - 1 <= 2000 && selector.length > 0)
      out.push({ selector, body: css.slice(open + 1, close) });
    previous = open;
    open = close;
  }
  return out;
}

function nextBrace(s: string, from: number): number {
  for (let i = from; i < s.length; i++) if (s[i] === '{' || s[i] === '}') return i;
  return -1;
}

/** How an inline style hides an element, or null. */
export function hiddenBy(style: string): string | null {
  const s = style.toLowerCase();
  if (/display\s*:\s*none/.test(s)) return 'display:none';
  if (/visibility\s*:\s*hidden/.test(s)) return 'visibility:hidden';
  if (/(?:^|[;\s])(?:width|height)\s*:\s*[01](?:\.0+)?(?:px)?\s*(?:;|$|!)/.test(s)) return '尺寸为 0 或 1';
  if (/opacity\s*:\s*0(?:\.0+)?\s*(?:;|$|!)/.test(s)) return 'opacity:0';
  if (/(?:left|top|right|bottom)\s*:\s*-\d{3,}/.test(s) || /text-indent\s*:\s*-\d{3,}/.test(s))
    return '移出屏幕';
  if (s.split(';').some(scalesToZero)) return '缩放为 0';
  return null;
}

/** One declaration `transform: … scale(0)`: looked at one declaration at a time, never across. */
function scalesToZero(declaration: string): boolean {
  const transform = /transform\s*:/.exec(declaration);
  if (!transform) return false;
  return /scale\(\s*0(?:\.0+)?\s*\)/.test(declaration.slice(transform.index + transform[0].length));
}

const isHiddenStyle = (s: string) => hiddenBy(s) !== null;
