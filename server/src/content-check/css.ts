/** CSS: @import and url() references (root-absolute, missing files, other hosts). */
import type { FileContext } from './context.js';
import { reference } from './references.js';

const CSS_IMPORT = /@import\s+(?:url\(\s*)?(['"]?)([^'")\s;]{1,2048})/gi;
const CSS_URL = /\burl\(\s*(['"]?)([^'")\s]{1,2048})\1\s*\)/gi;

export function scanCss(ctx: FileContext, css: string, base: number) {
  for (const match of css.matchAll(CSS_IMPORT)) {
    const at = base + match.index;
    const target = reference(ctx, match[2]!, at);
    if (target.kind === 'external') {
      ctx.domain('stylesheets', target.host);
      ctx.add('html.external-stylesheet', { domain: target.host }, at);
    }
  }
  for (const match of css.matchAll(CSS_URL)) reference(ctx, match[2]!, base + match.index);
}

/** Class and id selectors a stylesheet hides (display:none, visibility:hidden): for hidden frames. */
export function hiddenSelectors(css: string): string[] {
  const out: string[] = [];
  for (const match of css.matchAll(/([^{}]{1,300})\{([^{}]{0,2000})\}/g)) {
    if (!isHiddenStyle(match[2]!)) continue;
    for (const sel of match[1]!.split(',')) {
      const simple = /^\s*([.#][-\w]+)\s*$/.exec(sel);
      if (simple) out.push(simple[1]!);
    }
  }
  return out;
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
  if (/transform\s*:[^;]*scale\(\s*0(?:\.0+)?\s*\)/.test(s)) return '缩放为 0';
  return null;
}

const isHiddenStyle = (s: string) => hiddenBy(s) !== null;
