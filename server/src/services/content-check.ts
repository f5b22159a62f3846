/**
 * The content check of a deployment (review issue, item 4): what a reviewer should look at before
 * a site goes live. It reads the site's HTML, CSS, JavaScript, SVG and other text files and reports
 * missing entry pages, root-absolute links that break under /sites/{id}/, external scripts, styles
 * and frames with their domains, password forms and forms posting elsewhere, redirects to other
 * domains, obfuscation, crypto-miners and text files whose content is not what their extension
 * says (binary types are already refused at ingest when their bytes don't match).
 *
 * It runs on the main thread, so every read is size-capped (per file and in total), every pattern
 * is linear-time on hostile input (hand-written tag scanner, bounded quantifiers), and it yields to
 * the event loop between files. It never fails an upload: an unreadable file is skipped.
 */
import fs from 'node:fs';
import {
  type ContentCheckKind,
  type ContentCheckLevel,
  type ContentCheckReport,
  type ContentCheckSeverity,
  type ContentCheckSummary,
  type ContentFinding,
  format,
  formatBytes,
  messages,
} from '@sitehall/contracts';
import type { BlobStore } from '../storage/index.js';

const m = messages.review.contentCheck;

/** One file of a site, from the ingest's temp files or from the blob store. */
export interface SiteFile {
  path: string;
  size: number;
  extension: string;
  /** The first maxBytes bytes (or the whole file when smaller). */
  read(maxBytes: number): Promise<Buffer>;
}

/** A file still on disk (the ingest's output, before it moves into the blob store). */
export function siteFileOnDisk(f: {
  path: string;
  size: number;
  extension: string;
  tempFile: string;
}): SiteFile {
  return {
    path: f.path,
    size: f.size,
    extension: f.extension,
    async read(maxBytes) {
      const handle = await fs.promises.open(f.tempFile, 'r');
      try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(maxBytes), 0, maxBytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
    },
  };
}

/** A stored file (checking a deployment made before the check existed). */
export function siteFileInStore(
  store: BlobStore,
  f: { path: string; size: number; extension: string; sha256: string },
): SiteFile {
  return {
    path: f.path,
    size: Number(f.size),
    extension: f.extension,
    async read(maxBytes) {
      if (maxBytes <= 0) return Buffer.alloc(0);
      const chunks: Buffer[] = [];
      for await (const chunk of await store.read(f.sha256, { start: 0, end: maxBytes - 1 })) {
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    },
  };
}

export interface ContentCheckOptions {
  /** Sites are served at the root of their own host (SITES_SUBDOMAINS): "/x" links work there. */
  rootPathsWork?: boolean;
  /** Read budget per file and in total (tests lower them). */
  maxBytesPerFile?: number;
  maxBytesTotal?: number;
}

export const CONTENT_CHECK_LIMITS = {
  maxBytesPerFile: 2 * 1024 * 1024,
  maxBytesTotal: 64 * 1024 * 1024,
  /** Findings listed in the report (all are counted). */
  maxFindings: 300,
  /** Findings of one kind listed per file. */
  maxPerKindAndFile: 10,
  /** Files at least this large get an info finding. */
  largeFileBytes: 10 * 1024 * 1024,
  /** Bytes of a non-markup text file looked at for a content/extension mismatch. */
  headBytes: 1024,
} as const;

/** Tags handled between two yields to the event loop (a few milliseconds of work). */
const TAGS_PER_SLICE = 2000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const SEVERITY_RANK: Record<ContentCheckSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };
const SEVERITIES: ContentCheckSeverity[] = ['high', 'medium', 'low', 'info'];

const HTML = new Set(['html', 'htm']);
const SCRIPT = new Set(['js', 'mjs']);
/** Text types that must not be an HTML page in disguise. */
const PLAIN_TEXT = new Set(['css', 'js', 'mjs', 'json', 'map', 'webmanifest', 'txt', 'md', 'csv', 'xml']);
const JSON_TYPES = new Set(['json', 'map', 'webmanifest']);

/** Reads the stored JSON of a deployment's check; null when absent or unreadable. */
export function parseContentCheck(json: string | null): ContentCheckReport | null {
  if (!json) return null;
  try {
    const report = JSON.parse(json) as ContentCheckReport;
    return report && report.version === 1 ? report : null;
  } catch {
    return null;
  }
}

export function summarizeContentCheck(report: ContentCheckReport | null): ContentCheckSummary | null {
  return report ? { level: report.level, counts: report.counts } : null;
}

export async function checkSiteContent(
  files: readonly SiteFile[],
  entryFile: string | null,
  opts: ContentCheckOptions = {},
): Promise<ContentCheckReport> {
  const perFile = opts.maxBytesPerFile ?? CONTENT_CHECK_LIMITS.maxBytesPerFile;
  let budget = opts.maxBytesTotal ?? CONTENT_CHECK_LIMITS.maxBytesTotal;
  const out = new Collector();
  let scanned = 0;
  const partial: string[] = [];

  if (entryFile === null) out.add('medium', 'missing_entry', m.missingEntry, null, null);
  const paths = new Set(files.map((f) => f.path));

  for (const f of files) {
    if (f.size >= CONTENT_CHECK_LIMITS.largeFileBytes) {
      out.add('info', 'large_file', format(m.largeFile, { size: formatBytes(f.size) }), f.path, null);
    }
    const ext = f.extension;
    const markup = HTML.has(ext) || ext === 'svg';
    const full = markup || SCRIPT.has(ext) || ext === 'css' || JSON_TYPES.has(ext);
    if (!full && !PLAIN_TEXT.has(ext)) continue;
    const want = Math.min(f.size, full ? perFile : CONTENT_CHECK_LIMITS.headBytes, Math.max(budget, 0));
    if (want <= 0 && f.size > 0) {
      partial.push(f.path);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = await f.read(want);
    } catch {
      continue;
    }
    budget -= bytes.length;
    scanned++;
    const complete = bytes.length >= f.size;
    if (!complete && full) partial.push(f.path);
    const scan = new FileScan(f.path, bytes.toString('utf8').replace(/^\ufeff/, ''), out, {
      rootPathsWork: opts.rootPathsWork ?? false,
      paths,
    });
    if (HTML.has(ext)) await scan.html();
    else if (ext === 'svg') await scan.svg();
    else if (SCRIPT.has(ext)) scan.script(0, scan.text.length);
    else if (ext === 'css') scan.css(0, scan.text.length);
    if (PLAIN_TEXT.has(ext)) scan.plainText(ext, complete);
    else if (HTML.has(ext)) scan.looksLikeHtml(ext);
    // Let other requests run between files.
    await nextTurn();
  }

  const largest = [...files]
    .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))
    .slice(0, 5)
    .map((f) => ({ file: f.path, size: f.size }));
  return out.report({ largest, scanned, partial });
}

/** Findings in order of severity, counted in full and listed up to the caps. */
class Collector {
  private list: ContentFinding[] = [];
  private perKey = new Map<string, number>();
  private omitted = 0;
  readonly counts: Record<ContentCheckSeverity, number> = { high: 0, medium: 0, low: 0, info: 0 };
  readonly domains = {
    scripts: new Set<string>(),
    stylesheets: new Set<string>(),
    frames: new Set<string>(),
    forms: new Set<string>(),
    redirects: new Set<string>(),
  };

  add(
    severity: ContentCheckSeverity,
    kind: ContentCheckKind,
    message: string,
    file: string | null,
    line: number | null,
  ) {
    this.counts[severity]++;
    const key = `${kind}\u0000${file ?? ''}`;
    const n = this.perKey.get(key) ?? 0;
    if (n >= CONTENT_CHECK_LIMITS.maxPerKindAndFile) {
      this.omitted++;
      return;
    }
    this.perKey.set(key, n + 1);
    this.list.push({ severity, kind, message, file, line });
    // Keep memory flat on huge sites: trim to the most severe now and then.
    if (this.list.length >= CONTENT_CHECK_LIMITS.maxFindings * 4) this.trim();
  }

  private trim() {
    this.list.sort(byImportance);
    const cut = this.list.length - CONTENT_CHECK_LIMITS.maxFindings;
    if (cut > 0) {
      this.omitted += cut;
      this.list.length = CONTENT_CHECK_LIMITS.maxFindings;
    }
  }

  report(extra: {
    largest: Array<{ file: string; size: number }>;
    scanned: number;
    partial: string[];
  }): ContentCheckReport {
    this.trim();
    const level: ContentCheckLevel = SEVERITIES.find((s) => this.counts[s] > 0) ?? 'clean';
    const sorted = (s: Set<string>) => [...s].sort();
    return {
      version: 1,
      level,
      counts: { ...this.counts },
      checked_at: new Date().toISOString(),
      findings: this.list,
      omitted_findings: this.omitted,
      external_domains: {
        scripts: sorted(this.domains.scripts),
        stylesheets: sorted(this.domains.stylesheets),
        frames: sorted(this.domains.frames),
        forms: sorted(this.domains.forms),
        redirects: sorted(this.domains.redirects),
      },
      largest_files: extra.largest,
      scanned_files: extra.scanned,
      partially_scanned_files: extra.partial,
    };
  }
}

function byImportance(a: ContentFinding, b: ContentFinding): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (a.file ?? '').localeCompare(b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0)
  );
}

/** Where a reference points: another host, the platform's root (a leading "/"), or inside the site. */
type Target = { kind: 'external'; host: string } | { kind: 'root'; url: string } | { kind: 'local' };

export function classifyUrl(raw: string): Target {
  let start = 0;
  while (start < raw.length && raw.charCodeAt(start) <= 0x20) start++;
  const first = raw[start];
  // Most references are plain relative paths: nothing to look at.
  if (first !== '/' && first !== '\\' && first !== 'h' && first !== 'H') return { kind: 'local' };
  // Browsers drop leading spaces and control characters and read "\" as "/".
  const url = raw.slice(start).replace(/\\/g, '/');
  if (/^(https?:)?\/\//i.test(url)) {
    try {
      const u = new URL(url.startsWith('//') ? `http:${url}` : url);
      return u.hostname ? { kind: 'external', host: u.hostname.toLowerCase() } : { kind: 'local' };
    } catch {
      return { kind: 'local' };
    }
  }
  if (url.startsWith('/')) return { kind: 'root', url: url.slice(0, 200) };
  return { kind: 'local' };
}

/**
 * Whether a relative reference from the file `from` names a file the site does not have, the
 * way the server would look it up (the path itself, or a folder's index page). False for what
 * can't be judged: fragments, other schemes (mailto:, data:…), template placeholders, paths
 * that leave the site, undecodable escapes.
 */
export function missingLocal(url: string, from: string, paths: ReadonlySet<string>): boolean {
  const trimmed = url.trim();
  if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('?')) return false;
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || /[{}$<>`]/.test(trimmed)) return false;
  const bare = trimmed.split('#', 1)[0]!.split('?', 1)[0]!;
  if (bare === '') return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return false;
  }
  const segments = `${from.slice(0, from.lastIndexOf('/') + 1)}${decoded}`.split('/');
  const resolved: string[] = [];
  for (const [i, segment] of segments.entries()) {
    if (segment === '..') {
      if (resolved.length === 0) return false;
      resolved.pop();
    } else if (segment !== '.' && (segment !== '' || i === segments.length - 1)) {
      resolved.push(segment);
    }
  }
  const path = resolved.join('/').normalize('NFC');
  const folder = path === '' || path.endsWith('/') ? path : `${path}/`;
  if (path !== folder && paths.has(path)) return false;
  return !paths.has(`${folder}index.html`) && !paths.has(`${folder}index.htm`);
}

/** Known browser crypto-miners (names of their libraries, hosts and entry points). */
const MINERS =
  /\b(coin-?hive|authedmine|crypto-?loot|coinimp|jsecoin|webmine(?:pool|rpool|\.pro)|deepminer|cryptonight|coinhave|minero\.cc|monerominer|nfwebminer|crypto-webminer|ppoi\.org|CRLT\.Anonymous)\b/gi;

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
  form: ['action'],
  base: ['href'],
  use: ['href', 'xlink:href'],
  image: ['href', 'xlink:href'],
};

interface Attr {
  name: string;
  value: string;
  /** Offset of the value in the file. */
  at: number;
}

interface Tag {
  name: string;
  end: boolean;
  at: number;
  attrs: Attr[];
  /** script and style: their content's range. */
  body?: { start: number; end: number };
}

const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp']);

/** The findings of one file; `text` is the part read (all of it, or up to the read cap). */
class FileScan {
  private lineStarts: number[] | null = null;
  private form: { at: number; host: string | null; password: number | null } | null = null;

  constructor(
    readonly path: string,
    readonly text: string,
    private readonly out: Collector,
    private readonly opts: { rootPathsWork: boolean; paths: ReadonlySet<string> },
  ) {}

  /** A <base href> changes what relative references mean: they are not checked after one. */
  private based = false;

  private line(offset: number): number {
    if (!this.lineStarts) {
      const starts = [0];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    const s = this.lineStarts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  private add(
    severity: ContentCheckSeverity,
    kind: ContentCheckKind,
    message: string,
    offset: number | null,
  ) {
    this.out.add(severity, kind, message, this.path, offset === null ? null : this.line(offset));
  }

  /** A reference in an attribute or CSS url(): root-absolute paths break under /sites/{id}/. */
  private reference(url: string, at: number): Target {
    const target = classifyUrl(url);
    if (target.kind === 'root' && !this.opts.rootPathsWork) {
      this.add('medium', 'root_absolute_link', format(m.rootAbsolute, { url: target.url }), at);
    }
    if (target.kind === 'local' && !this.based && missingLocal(url, this.path, this.opts.paths)) {
      this.add('low', 'missing_file', format(m.missingFile, { url: url.trim().slice(0, 200) }), at);
    }
    return target;
  }

  async html() {
    let n = 0;
    for (const tag of scanTags(this.text)) {
      this.tag(tag);
      if (++n % TAGS_PER_SLICE === 0) await nextTurn();
    }
    this.closeForm();
  }

  async svg() {
    let n = 0;
    for (const tag of scanTags(this.text)) {
      if (!tag.end && (tag.name === 'script' || tag.attrs.some((a) => a.name.startsWith('on')))) {
        this.add('medium', 'svg_script', m.svgScript, tag.at);
      }
      this.tag(tag);
      if (++n % TAGS_PER_SLICE === 0) await nextTurn();
    }
  }

  private tag(tag: Tag) {
    if (tag.end) {
      if (tag.name === 'form') this.closeForm();
      return;
    }
    const attr = (name: string) => tag.attrs.find((a) => a.name === name);
    for (const a of tag.attrs) {
      // Inline handlers and javascript: URLs are scripts too.
      if (a.name.startsWith('on') && a.name.length > 2) this.scriptText(a.value, a.at);
      else if (/^\s*javascript:/i.test(a.value)) this.scriptText(a.value, a.at);
      else if (a.name === 'style') this.cssText(a.value, a.at);
    }
    if (tag.name === 'base' && attr('href')) this.based = true;
    for (const name of ATTR_URLS[tag.name] ?? []) {
      const a = attr(name);
      if (!a) continue;
      const urls = name === 'srcset' ? srcsetUrls(a.value) : [a.value];
      for (const url of urls) this.urlAttribute(tag, url, a.at);
    }
    if (tag.name === 'form') {
      this.closeForm();
      const action = attr('action');
      const target = action ? classifyUrl(action.value) : null;
      this.form = { at: tag.at, host: target?.kind === 'external' ? target.host : null, password: null };
    } else if (tag.name === 'input' && attr('type')?.value.trim().toLowerCase() === 'password') {
      if (this.form) this.form.password ??= tag.at;
      else this.add('medium', 'password_form', m.passwordForm, tag.at);
    } else if (tag.name === 'meta' && attr('http-equiv')?.value.trim().toLowerCase() === 'refresh') {
      const content = attr('content');
      const url = content ? /url\s*=\s*['"]?([^'";\s]+)/i.exec(content.value)?.[1] : undefined;
      if (content && url) {
        const target = this.reference(url, content.at);
        if (target.kind === 'external') {
          this.out.domains.redirects.add(target.host);
          this.add('high', 'redirect', format(m.metaRefresh, { domain: target.host }), content.at);
        }
      }
    }
    if (tag.body) {
      if (tag.name === 'script' && !attr('src')) this.script(tag.body.start, tag.body.end);
      else if (tag.name === 'style') this.css(tag.body.start, tag.body.end);
    }
  }

  private urlAttribute(tag: Tag, url: string, at: number) {
    // Forms are judged when they close (a password field makes an outside action worse).
    const target = tag.name === 'form' ? classifyUrl(url) : this.reference(url, at);
    if (tag.name === 'form' && target.kind === 'root') this.reference(url, at);
    MINERS.lastIndex = 0;
    const miner = tag.name === 'script' ? MINERS.exec(url) : null;
    if (miner) this.add('high', 'crypto_miner', format(m.cryptoMiner, { name: miner[1]! }), at);
    if (target.kind !== 'external') return;
    const domain = target.host;
    const rel = tag.attrs.find((a) => a.name === 'rel')?.value.toLowerCase() ?? '';
    if (tag.name === 'script') {
      this.out.domains.scripts.add(domain);
      this.add('low', 'external_script', format(m.externalScript, { domain }), at);
    } else if (tag.name === 'link' && /\bstylesheet\b/.test(rel)) {
      this.out.domains.stylesheets.add(domain);
      this.add('info', 'external_stylesheet', format(m.externalStylesheet, { domain }), at);
    } else if (['iframe', 'frame', 'embed', 'object'].includes(tag.name)) {
      this.out.domains.frames.add(domain);
      this.add('low', 'external_frame', format(m.externalFrame, { domain }), at);
    } else if (tag.name === 'form') {
      this.out.domains.forms.add(domain);
    }
  }

  private closeForm() {
    const f = this.form;
    if (!f) return;
    this.form = null;
    if (f.password !== null && f.host) {
      this.add('high', 'password_form', format(m.passwordFormExternal, { domain: f.host }), f.password);
    } else if (f.password !== null) {
      this.add('medium', 'password_form', m.passwordForm, f.password);
    } else if (f.host) {
      this.add('medium', 'external_form', format(m.externalForm, { domain: f.host }), f.at);
    }
  }

  /** JavaScript in [start, end) of the file. */
  script(start: number, end: number) {
    this.scriptText(this.text.slice(start, end), start);
  }

  private scriptText(code: string, base: number) {
    const at = (i: number) => base + i;
    for (const match of code.matchAll(REDIRECT)) {
      const target = classifyUrl(match[2]!);
      if (target.kind === 'external') {
        this.out.domains.redirects.add(target.host);
        this.add('medium', 'redirect', format(m.scriptRedirect, { domain: target.host }), at(match.index));
      }
    }
    for (const match of code.matchAll(EVAL_ATOB)) {
      this.add('high', 'obfuscation', format(m.evalBase64, { fn: match[1]! }), at(match.index));
    }
    for (const match of code.matchAll(EVAL_ENCODED)) {
      this.add('high', 'obfuscation', format(m.evalEncodedString, { fn: match[1]! }), at(match.index));
    }
    if (/\b(eval|Function)\s*\(/.test(code)) {
      const blob = LONG_BASE64.exec(code);
      if (blob) this.add('medium', 'obfuscation', m.longBase64WithEval, at(blob.index));
    }
    for (const [pattern, severity, message] of OBFUSCATION) {
      for (const match of code.matchAll(pattern)) this.add(severity, 'obfuscation', message, at(match.index));
    }
    for (const match of code.matchAll(MINERS)) {
      this.add('high', 'crypto_miner', format(m.cryptoMiner, { name: match[1]! }), at(match.index));
    }
  }

  /** CSS in [start, end) of the file. */
  css(start: number, end: number) {
    this.cssText(this.text.slice(start, end), start);
  }

  private cssText(css: string, base: number) {
    for (const match of css.matchAll(CSS_IMPORT)) {
      const target = this.reference(match[2]!, base + match.index);
      if (target.kind === 'external') {
        this.out.domains.stylesheets.add(target.host);
        this.add(
          'info',
          'external_stylesheet',
          format(m.externalStylesheet, { domain: target.host }),
          base + match.index,
        );
      }
    }
    for (const match of css.matchAll(CSS_URL)) this.reference(match[2]!, base + match.index);
  }

  /** A text type that is really an HTML page, or JSON that does not parse. */
  plainText(ext: string, complete: boolean) {
    const head = this.text.slice(0, CONTENT_CHECK_LIMITS.headBytes).trimStart().toLowerCase();
    if (head.startsWith('<!doctype html') || head.startsWith('<html')) {
      this.add('medium', 'type_mismatch', format(m.htmlInOtherType, { ext }), 0);
      return;
    }
    if (JSON_TYPES.has(ext) && complete) {
      try {
        JSON.parse(this.text);
      } catch {
        this.add('low', 'type_mismatch', format(m.invalidJson, { ext }), null);
      }
    }
  }

  looksLikeHtml(ext: string) {
    if (!this.text.slice(0, CONTENT_CHECK_LIMITS.headBytes).includes('<')) {
      this.add('low', 'type_mismatch', format(m.notHtml, { ext }), null);
    }
  }
}

/* Every pattern has bounded repetition or a fixed shape, so none backtracks badly on hostile input. */
const REDIRECT =
  /\blocation(?:\.href)?\s*(?:=(?!=)|\.(?:replace|assign)\s*\()\s*(['"`])\s*((?:https?:)?[/\\]{2}[^'"`\s]{1,2048})/g;
const EVAL_ATOB =
  /\b(eval|Function|setTimeout|setInterval)\s*\(\s*(?:window\.|self\.|globalThis\.)?(?:atob|decodeURIComponent\s*\(\s*escape\s*\(\s*atob)\s*\(/g;
const EVAL_ENCODED = /\b(eval|Function)\s*\(\s*(['"`])([A-Za-z0-9+/]{200,}={0,2})\2/g;
const LONG_BASE64 = /(['"`])([A-Za-z0-9+/]{1000,}={0,2})\1/;
const OBFUSCATION: Array<[RegExp, ContentCheckSeverity, string]> = [
  [/\beval\s*\(\s*function\s*\(\s*p\s*,\s*a\s*,\s*c\s*,\s*k\s*,\s*e\s*,/g, 'medium', m.packer],
  [/\bdocument\.write\s*\(\s*unescape\s*\(/g, 'medium', m.documentWriteUnescape],
  [/String\.fromCharCode\s*\((?:\s*\d{1,6}\s*,){40}/g, 'low', m.charCodes],
  [/(?:\\x[0-9a-fA-F]{2}){40}/g, 'low', m.hexEscapes],
];
const CSS_IMPORT = /@import\s+(?:url\(\s*)?(['"]?)([^'")\s;]{1,2048})/gi;
const CSS_URL = /\burl\(\s*(['"]?)([^'")\s]{1,2048})\1\s*\)/gi;

function srcsetUrls(value: string): string[] {
  return value
    .split(',')
    .map((c) => c.trim().split(/\s+/)[0] ?? '')
    .filter((u) => u.length > 0);
}

const ENTITIES: Record<string, string> = {
  amp: '&',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  sol: '/',
  colon: ':',
};

/** The character references an attribute value may hide a URL behind. */
function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});?/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/**
 * The tags of an HTML (or SVG) document, in one linear pass: comments and doctypes are skipped,
 * attribute values are read with their quotes, and script/style content is handed over whole.
 */
export function* scanTags(text: string): Generator<Tag> {
  const n = text.length;
  const code = (k: number) => text.charCodeAt(k);
  let i = 0;
  while (i < n) {
    const lt = text.indexOf('<', i);
    if (lt === -1 || lt + 1 >= n) return;
    const next = code(lt + 1);
    if (text.startsWith('<!--', lt)) {
      const close = text.indexOf('-->', lt + 4);
      i = close === -1 ? n : close + 3;
      continue;
    }
    if (next === BANG || next === QUESTION) {
      const close = text.indexOf('>', lt + 2);
      i = close === -1 ? n : close + 1;
      continue;
    }
    const end = next === SLASH;
    const nameStart = end ? lt + 2 : lt + 1;
    if (nameStart >= n || !isLetter(code(nameStart))) {
      i = lt + 1;
      continue;
    }
    let j = nameStart;
    while (j < n && isTagNameChar(code(j))) j++;
    const name = text.slice(nameStart, j).toLowerCase();
    const attrs: Attr[] = [];
    // Attributes, up to the closing '>' (quoted values may hold '>').
    while (j < n && code(j) !== GT) {
      if (isSpace(code(j)) || code(j) === SLASH) {
        j++;
        continue;
      }
      const an = j;
      while (j < n && !isSpace(code(j)) && code(j) !== SLASH && code(j) !== GT && code(j) !== EQ) j++;
      if (j === an) j++; // a stray '=': step over it
      const attrName = text.slice(an, j).toLowerCase();
      let k = j;
      while (k < n && isSpace(code(k))) k++;
      let value = '';
      let at = an;
      if (code(k) === EQ) {
        k++;
        while (k < n && isSpace(code(k))) k++;
        const q = code(k);
        if (q === DQUOTE || q === SQUOTE) {
          const close = text.indexOf(text[k]!, k + 1);
          const stop = close === -1 ? n : close;
          value = text.slice(k + 1, stop);
          at = k + 1;
          j = stop + 1;
        } else {
          const vs = k;
          while (k < n && !isSpace(code(k)) && code(k) !== GT) k++;
          value = text.slice(vs, k);
          at = vs;
          j = k;
        }
      }
      if (attrName !== '=' && attrs.length < 200)
        attrs.push({ name: attrName, value: decodeEntities(value), at });
    }
    i = j + 1;
    const tag: Tag = { name, end, at: lt, attrs };
    if (!end && RAW_TEXT.has(name)) {
      const closer = new RegExp(`</${name}[\\s/>]`, 'gi');
      closer.lastIndex = i;
      const found = closer.exec(text);
      const stop = found ? found.index : n;
      tag.body = { start: Math.min(i, n), end: stop };
      i = stop;
    }
    yield tag;
  }
}

const BANG = 0x21;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const SLASH = 0x2f;
const EQ = 0x3d;
const GT = 0x3e;
const QUESTION = 0x3f;

function isLetter(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

function isTagNameChar(c: number): boolean {
  return isLetter(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x3a || c === 0x5f;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c;
}
