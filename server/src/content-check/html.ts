/**
 * HTML and SVG, parsed with htmlparser2: references (root-absolute, missing, other hosts),
 * external scripts, styles and frames (hidden ones apart), links and downloads of executables,
 * meta refresh, forms scored for phishing, inline scripts and handlers (js.ts), inline styles
 * (css.ts) and the page's text for the scam model (text.ts).
 */
import { Parser } from 'htmlparser2';
import type { FileContext } from './context.js';
import { hiddenBy, hiddenSelectors, scanCss } from './css.js';
import { judgeSinks, MINERS, scanScript } from './js.js';
import { reference } from './references.js';
import { brandIn, lureIn, scamSignals, sensitiveField } from './text.js';
import {
  classifyUrl,
  executableExtension,
  isFormService,
  isKnownEmbed,
  isKnownService,
  isRelativePath,
  isServerScript,
} from './urls.js';

const ATTR_URLS: Record<string, readonly string[]> = {
  a: ['href'],
  area: ['href'],
  link: ['href'],
  script: ['src'],
  img: ['src', 'srcset'],
  source: ['src', 'srcset'],
  iframe: ['src'],
  frame: ['src'],
  embed: ['src'],
  object: ['data'],
  video: ['src', 'poster'],
  audio: ['src'],
  track: ['src'],
  input: ['src'],
  base: ['href'],
  use: ['href', 'xlink:href'],
  image: ['href', 'xlink:href'],
};
const FRAMES = new Set(['iframe', 'frame', 'embed', 'object']);
const FIELDS = new Set(['input', 'select', 'textarea']);
/** Characters of page text kept for the words model. */
const MAX_TEXT = 200_000;
/** Tags between two looks at the file's deadline. */
const TAGS_PER_TIME_CHECK = 500;

interface Form {
  at: number;
  method: string;
  /** null: no action attribute. */
  action: string | null;
  handler: boolean;
  sensitive: Set<string>;
  text: string;
}

interface Frame {
  at: number;
  host: string;
  hidden: string | null;
  selectors: string[];
}

export function scanHtml(ctx: FileContext, opts: { svg: boolean }) {
  new HtmlScan(ctx, opts.svg, 0, 0).run(ctx.text);
}

/** Markup a script decoded (document.write(atob(…))): scanned as part of the same file. */
export function scanDecodedMarkup(ctx: FileContext, html: string, offset: number, depth: number) {
  new HtmlScan(ctx, false, depth, offset, true).run(html);
}

class HtmlScan {
  private based = false;
  private forms: Form[] = [];
  private form: Form | null = null;
  private looseFields = new Set<string>();
  private frames: Frame[] = [];
  private hiddenCss = new Set<string>();
  private stack: Array<{ name: string; hidden: string | null }> = [];
  private text: string[] = [];
  private textLength = 0;
  private qrHints: string[] = [];
  private raw: { name: string; start: number; chunks: string[] } | null = null;
  private localScripts: string[] = [];
  private tags = 0;

  constructor(
    private readonly ctx: FileContext,
    private readonly svg: boolean,
    private readonly depth: number,
    /** Offset of this markup in the file (decoded markup sits at its script's offset). */
    private readonly base: number,
    private readonly decoded = false,
  ) {}

  run(markup: string) {
    const parser: Parser = new Parser(
      {
        onopentag: (name, attribs) => this.open(name, attribs, this.at(parser.startIndex)),
        onclosetag: (name) => this.close(name),
        ontext: (data) => this.textChunk(data, this.at(parser.startIndex)),
      },
      {
        decodeEntities: true,
        lowerCaseTags: true,
        lowerCaseAttributeNames: true,
        recognizeSelfClosing: true,
      },
    );
    parser.write(markup);
    parser.end();
    this.finish();
  }

  private at(index: number): number {
    return this.decoded ? this.base : this.base + index;
  }

  private get hidden(): string | null {
    return this.stack.at(-1)?.hidden ?? null;
  }

  private open(name: string, attribs: Record<string, string>, at: number) {
    if (++this.tags % TAGS_PER_TIME_CHECK === 0) this.ctx.checkTime();
    const ctx = this.ctx;
    const style = attribs.style ?? '';
    const hidden =
      this.hidden ??
      (attribs.hidden !== undefined ? 'hidden' : null) ??
      (style ? hiddenBy(style) : null) ??
      (name === 'iframe' || name === 'frame' ? frameSizeHidden(attribs) : null);
    this.stack.push({ name, hidden });
    if (
      this.svg &&
      (name === 'script' || Object.keys(attribs).some((a) => a.startsWith('on') && a.length > 2))
    ) {
      ctx.add('svg.script', {}, at);
    }
    for (const [attr, value] of Object.entries(attribs)) {
      if (attr.startsWith('on') && attr.length > 2) scanScript(ctx, value, at, this.depth);
      else if (/^\s*javascript:/i.test(value))
        scanScript(ctx, value.replace(/^\s*javascript:/i, ''), at, this.depth);
    }
    if (style) scanCss(ctx, style, at);
    if (name === 'base' && attribs.href) this.based = true;
    if (name === 'img') this.qrHints.push(attribs.src ?? '', attribs.alt ?? '', attribs.title ?? '');
    if (attribs.alt) this.addText(attribs.alt);
    for (const attr of ATTR_URLS[name] ?? []) {
      const value = attribs[attr];
      if (value === undefined) continue;
      const urls = attr === 'srcset' ? srcsetUrls(value) : [value];
      for (const url of urls) this.url(name, attribs, url, at, hidden);
    }
    if ((name === 'a' || name === 'area') && attribs.download && executableExtension(attribs.download)) {
      ctx.addOnce('link.executable', attribs.download, { url: attribs.download.slice(0, 200) }, at);
    }
    if (name === 'form') {
      this.form = {
        at,
        method: (attribs.method ?? 'get').trim().toLowerCase(),
        action: attribs.action ?? null,
        handler: attribs.onsubmit !== undefined,
        sensitive: new Set(),
        text: '',
      };
      this.forms.push(this.form);
      if (attribs.action) {
        const target = classifyUrl(attribs.action);
        // Where a form posts is no file to load: only the root-absolute note.
        if (target.kind === 'root') reference(ctx, attribs.action, at, false, false);
        if (target.kind === 'external') ctx.domain('forms', target.host);
      }
    } else if (FIELDS.has(name)) {
      const type = (attribs.type ?? '').trim().toLowerCase();
      const described = [
        attribs.name,
        attribs.id,
        attribs.placeholder,
        attribs.autocomplete,
        attribs['aria-label'],
      ]
        .filter(Boolean)
        .join(' ');
      const kind = sensitiveField(type, described);
      if (kind) (this.form ? this.form.sensitive : this.looseFields).add(kind);
      if (attribs.placeholder) this.addText(attribs.placeholder);
    } else if (name === 'meta') {
      const equiv = attribs['http-equiv']?.trim().toLowerCase();
      if (equiv === 'refresh' && attribs.content) {
        const url = /url\s*=\s*['"]?([^'";\s]+)/i.exec(attribs.content)?.[1];
        if (url) {
          if (executableExtension(url)) ctx.addOnce('link.executable', url, { url: url.slice(0, 200) }, at);
          const target = reference(ctx, url, at, this.based);
          if (target.kind === 'external') {
            ctx.domain('redirects', target.host);
            ctx.add('html.meta-refresh', { domain: target.host }, at);
          }
        }
      }
      if (attribs.name?.toLowerCase() === 'description' && attribs.content) this.addText(attribs.content);
    }
    if (name === 'script' || name === 'style' || name === 'title' || name === 'textarea') {
      this.raw = { name, start: -1, chunks: [] };
    }
  }

  private url(tag: string, attribs: Record<string, string>, url: string, at: number, hidden: string | null) {
    const ctx = this.ctx;
    if ((tag === 'a' || tag === 'area') && executableExtension(url)) {
      ctx.addOnce('link.executable', url, { url: url.slice(0, 200) }, at);
    }
    const target = reference(ctx, url, at, this.based);
    if (tag === 'script') {
      MINERS.lastIndex = 0;
      const miner = MINERS.exec(url);
      if (miner) ctx.add('js.crypto-miner', { name: miner[1]! }, at);
      if (target.kind === 'local' && !this.based) this.localScripts.push(url);
    }
    const rel = attribs.rel?.toLowerCase() ?? '';
    if (
      target.kind === 'local' &&
      !this.based &&
      (tag === 'script' || (tag === 'link' && /\b(stylesheet|modulepreload)\b/.test(rel))) &&
      isRelativePath(url)
    )
      ctx.relativeAsset(url.trim().slice(0, 200));
    if (target.kind !== 'external') return;
    const domain = target.host;
    if (tag === 'script') {
      ctx.domain('scripts', domain);
      ctx.add('html.external-script', { domain }, at);
    } else if (tag === 'link' && /\bstylesheet\b/.test(rel)) {
      ctx.domain('stylesheets', domain);
      ctx.add('html.external-stylesheet', { domain }, at);
    } else if (FRAMES.has(tag)) {
      ctx.domain('frames', domain);
      const selectors = [
        attribs.class?.split(/\s+/).map((c) => `.${c}`) ?? [],
        attribs.id ? [`#${attribs.id}`] : [],
      ].flat();
      this.frames.push({ at, host: domain, hidden, selectors });
    }
  }

  private close(name: string) {
    if (this.raw && this.raw.name === name) {
      const { start, chunks } = this.raw;
      this.raw = null;
      const body = chunks.join('');
      if (name === 'script' && body.trim()) scanScript(this.ctx, body, start, this.depth);
      else if (name === 'style') {
        scanCss(this.ctx, body, start);
        for (const sel of hiddenSelectors(body)) this.hiddenCss.add(sel);
      } else if (name === 'title' || name === 'textarea') this.addText(body);
    }
    if (name === 'form') this.form = null;
    // From the top: the element closed is almost always the innermost one.
    for (let i = this.stack.length - 1; i >= 0 && i >= this.stack.length - 100; i--) {
      if (this.stack[i]!.name === name) {
        this.stack.length = i;
        break;
      }
    }
  }

  private textChunk(data: string, at: number) {
    if (this.raw) {
      if (this.raw.start < 0) this.raw.start = at;
      this.raw.chunks.push(data);
      return;
    }
    if (this.hidden) return; // hidden text is not what a visitor reads
    this.addText(data);
    if (this.form && this.form.text.length < 2000) this.form.text += data;
  }

  /** Page text, kept as it comes (whitespace is folded once, at the end). */
  private addText(s: string) {
    if (this.textLength >= MAX_TEXT) return;
    this.text.push(s);
    this.textLength += s.length + 1;
  }

  private finish() {
    const ctx = this.ctx;
    // Facts of the site's own scripts this page includes count as the page's own.
    const inherited = this.localScriptFacts();
    const drivesForms = ctx.facts.drivesForms || inherited.some((f) => f.drivesForms);
    const externalSink = ctx.facts.sinks.length > 0 || inherited.some((f) => f.sinks.length > 0);
    for (const frame of this.frames) this.judgeFrame(frame);
    const pageText = this.text.join(' ').slice(0, MAX_TEXT).replace(/\s+/g, ' ');
    for (const form of this.forms) {
      const text = `${form.text}`;
      for (const kind of sensitiveWordsIn(text)) form.sensitive.add(kind);
      this.judgeForm(form, pageText, { drivesForms, externalSink });
    }
    if (this.looseFields.size > 0) {
      // Fields outside any form: only a script can send them.
      this.judgeForm(
        { at: 0, method: 'post', action: null, handler: false, sensitive: this.looseFields, text: '' },
        pageText,
        { drivesForms: drivesForms || externalSink, externalSink },
      );
    }
    // A page with sensitive fields: its own scripts sending elsewhere may be sending them.
    for (const kind of [...this.looseFields, ...this.forms.flatMap((f) => [...f.sensitive])]) {
      ctx.facts.sources.add(`${kind}输入`);
    }
    if (!this.decoded) {
      const signals = scamSignals(pageText, this.qrHints);
      if (signals.topics.length > 0) {
        const values = {
          topics: signals.topics.join('、'),
          words: signals.words.join('、'),
          extras: signals.extras.join('、'),
        };
        // Scam words with both a payment QR code and a contact ID: the whole of a scam page's business.
        if (signals.extras.length >= 2) ctx.add('text.scam-payment', values, null);
        else if (signals.extras.length > 0) ctx.add('text.scam-contact', values, null);
        else ctx.add('text.scam', values, null);
      }
      judgeSinks(ctx, [...new Set(inherited.flatMap((f) => [...f.sources]))]);
    }
  }

  private localScriptFacts() {
    const out = [];
    for (const url of this.localScripts) {
      const path = resolveLocal(url, this.ctx.path);
      const facts = path ? this.ctx.scriptFacts(path) : undefined;
      if (facts) out.push(facts);
    }
    return out;
  }

  private judgeFrame(frame: Frame) {
    const hidden =
      frame.hidden ?? (frame.selectors.some((s) => this.hiddenCss.has(s)) ? 'display:none' : null);
    // A tag manager's <noscript> frame is hidden on purpose: known services are listed, not flagged.
    if (hidden && !isKnownService(frame.host)) {
      this.ctx.add('html.hidden-frame', { domain: frame.host, how: hidden }, frame.at);
    } else if (isKnownEmbed(frame.host) || isKnownService(frame.host)) {
      this.ctx.add('html.embed-frame', { domain: frame.host }, frame.at);
    } else {
      this.ctx.add('html.external-frame', { domain: frame.host }, frame.at);
    }
  }

  /**
   * Phishing scored rather than yes/no: sensitive fields + a brand + a lure + a target that sends
   * the data somewhere is high; a demo login form going nowhere is low; a GET search box or a
   * form service is information.
   */
  private judgeForm(form: Form, pageText: string, page: { drivesForms: boolean; externalSink: boolean }) {
    const ctx = this.ctx;
    const action = form.action?.trim() ?? null;
    const target = action === null ? null : classifyUrl(action);
    const external = target?.kind === 'external' ? target.host : null;
    const service = external !== null && isFormService(external);
    const server = action !== null && isServerScript(action);
    const nowhere =
      action === null || action === '' || action.startsWith('#') || /^javascript:/i.test(action);
    const byScript =
      page.drivesForms || (form.handler && page.externalSink) || (nowhere && page.externalSink);
    const sensitive = [...form.sensitive];
    if (sensitive.length > 0) {
      const brand = brandIn(pageText);
      const lure = lureIn(pageText);
      const sends = external !== null || byScript || server || action === null;
      if (brand && lure && sends) {
        const where = external
          ? `提交到 ${external}`
          : byScript
            ? '由脚本提交'
            : server
              ? `提交到服务器脚本 ${action}`
              : '未写提交地址';
        const signals = [`收集${sensitive.join('、')}`, `冒用“${brand}”`, `诱导用语“${lure}”`, where].join(
          '，',
        );
        ctx.add('form.phishing', { signals }, form.at);
      } else if (external && !service) {
        ctx.add('form.password-external', { domain: external }, form.at);
      } else if (external) {
        // A form service receives messages; a password, card or ID number is not one (services.ts).
        ctx.add('form.sensitive-to-service', { domain: external, what: sensitive.join('、') }, form.at);
      } else if (server) {
        ctx.add('form.server-script', { url: action!.slice(0, 200) }, form.at);
      } else if (external || byScript) {
        ctx.add('form.password-suspicious', {}, form.at);
      } else {
        ctx.add('form.password-demo', {}, form.at);
      }
      return;
    }
    if (server) ctx.add('form.server-script', { url: action!.slice(0, 200) }, form.at);
    else if (external && service) ctx.add('form.service', { domain: external }, form.at);
    else if (external && form.method !== 'post') ctx.add('form.external-get', { domain: external }, form.at);
    else if (external) ctx.add('form.external-post', { domain: external }, form.at);
  }
}

function sensitiveWordsIn(text: string): string[] {
  const out: string[] = [];
  for (const kind of [sensitiveField('', text)]) if (kind && kind !== '密码') out.push(kind);
  return out;
}

function frameSizeHidden(attribs: Record<string, string>): string | null {
  const small = (v: string | undefined) => v !== undefined && /^\s*[01](?:\.0+)?(?:px)?\s*$/i.test(v);
  return small(attribs.width) || small(attribs.height) ? '尺寸为 0 或 1' : null;
}

/** The site path a relative script src names from a page, or null. */
function resolveLocal(url: string, from: string): string | null {
  const bare = url.replace(/\\/g, '/').trim().split('#', 1)[0]!.split('?', 1)[0]!;
  if (!bare || /^[a-z][a-z0-9+.-]*:/i.test(bare) || bare.startsWith('/')) return null;
  let decoded = bare;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return null;
  }
  const out: string[] = [];
  for (const seg of `${from.slice(0, from.lastIndexOf('/') + 1)}${decoded}`.split('/')) {
    if (seg === '..') out.pop();
    else if (seg !== '.' && seg !== '') out.push(seg);
  }
  return out.join('/').normalize('NFC');
}

function srcsetUrls(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u.length > 0);
}
