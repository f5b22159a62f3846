/**
 * A site's own routing, in Netlify's formats (docs/product.md "A site's own routing"): `_redirects`
 * (redirects, 200 rewrites, 404s; splats and placeholders) and `_headers` (headers by path, within
 * an allow-list). Parsed strictly at upload, where a bad line refuses the upload naming the line,
 * and again, from the same text, when a deployment is loaded for serving.
 *
 * Patterns are matched segment by segment, never compiled to regular expressions: a pattern costs
 * at most one comparison per segment of the path, whatever a hostile file writes (no ReDoS).
 */
import { decodeSitePath } from './site-path.js';

export type RedirectStatus = 301 | 302 | 303 | 307 | 308;
export type RuleStatus = 200 | 404 | RedirectStatus;

/** The text of a deployment's routing files, as stored (deployments.site_rules). */
export interface SiteRulesText {
  redirects?: string | undefined;
  headers?: string | undefined;
}

/** Upload limits of the routing files: far above what real sites ship, far below harm. */
export const SITE_RULES_LIMITS = {
  maxFileBytes: 64 * 1024,
  maxRules: 1000,
  maxLineChars: 2000,
  maxSegments: 32,
  maxHeaderValueChars: 2000,
} as const;

type Segment = { kind: 'literal'; value: string } | { kind: 'placeholder'; name: string };

interface Pattern {
  segments: Segment[];
  /** Ends in `*`: the rest of the path, maybe empty, is the splat. */
  splat: boolean;
}

interface RedirectRule {
  from: Pattern;
  /** The target: site-absolute ('/new/:splat') or a full http(s) URL with a fixed origin. */
  to: string;
  external: boolean;
  status: RuleStatus;
  force: boolean;
}

interface HeaderRule {
  path: Pattern;
  headers: [string, string][];
}

export interface CompiledSiteRules {
  redirects: RedirectRule[];
  headerRules: HeaderRule[];
  /** Merged header sets by the rules that matched, so the same set is the same object. */
  headerSets: Map<string, Readonly<Record<string, string>>>;
}

/** A refused line: which file, which line (1-based), and why, in Chinese. */
export class SiteRulesError extends Error {
  constructor(
    readonly file: '_redirects' | '_headers',
    readonly line: number,
    readonly reason: string,
  ) {
    super(line > 0 ? `${file} 第 ${line} 行：${reason}` : `${file}：${reason}`);
    this.name = 'SiteRulesError';
  }
}

// ---- _redirects --------------------------------------------------------------------------------

const REDIRECT_STATUSES = new Set([200, 301, 302, 303, 307, 308, 404]);

export function parseRedirects(text: string): RedirectRule[] {
  const rules: RedirectRule[] = [];
  for (const [n, line] of lines(text, '_redirects')) {
    const fail = (reason: string) => new SiteRulesError('_redirects', n, reason);
    const fields = line.split(/[ \t]+/);
    if (fields.length < 2) throw fail('每条规则至少要有来源路径和目标两项，例如 “/old /new 301”');
    const [from, to, statusField, ...rest] = fields as [string, string, string | undefined, ...string[]];
    if (!to.startsWith('/') && !/^https?:\/\//i.test(to)) {
      if (to.includes('=')) throw fail('暂不支持按查询参数匹配的规则');
      throw fail(`目标 “${to}” 必须以 / 开头，或是完整的 http(s) 地址`);
    }
    if (rest.length > 0) throw fail('暂不支持按国家、语言、角色等条件匹配的规则');
    let status: RuleStatus = 301;
    let force = false;
    if (statusField !== undefined) {
      const m = /^(\d{3})(!?)$/.exec(statusField);
      if (!m || !REDIRECT_STATUSES.has(Number(m[1]))) {
        throw fail(`状态码 “${statusField}” 不受支持，可用 200、301、302、303、307、308、404（可加 !）`);
      }
      status = Number(m[1]) as RuleStatus;
      force = m[2] === '!';
    }
    const pattern = parsePattern(from, fail);
    const names = new Set(pattern.segments.flatMap((s) => (s.kind === 'placeholder' ? [s.name] : [])));
    const external = !to.startsWith('/');
    if (external) {
      if (status === 200 || status === 404)
        throw fail('200 和 404 规则的目标必须是本站路径（以 / 开头），不能指向其他网站');
      checkExternalTarget(to, fail);
    } else {
      if (to.startsWith('//')) throw fail(`目标 “${to}” 不能以 // 开头`);
      const q = to.indexOf('?');
      const targetPath = (q === -1 ? to : to.slice(0, q)).slice(1);
      // The fixed parts of the target must be a clean site path (no '..', no '//', no controls).
      const probe = targetPath.replace(/:splat|:[A-Za-z_][A-Za-z0-9_]*/g, 'x');
      if (decodeSitePath(probe) === null) throw fail(`目标 “${to}” 不是有效的站内路径`);
    }
    for (const ref of to.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)) {
      const name = ref[1]!;
      if (name === 'splat') {
        if (!pattern.splat) throw fail('目标用到了 :splat，但来源路径没有以 * 结尾');
      } else if (!names.has(name) && !(external && isPortLike(to, ref.index!))) {
        throw fail(`目标用到了 :${name}，但来源路径里没有这个占位符`);
      }
    }
    rules.push({ from: pattern, to, external, status, force });
    if (rules.length > SITE_RULES_LIMITS.maxRules)
      throw fail(`规则太多，最多 ${SITE_RULES_LIMITS.maxRules} 条`);
  }
  return rules;
}

/** `:443` in 'https://host:443/...' is a port, not a placeholder (refused below anyway). */
function isPortLike(to: string, index: number): boolean {
  return /^\d/.test(to.slice(index + 1));
}

/**
 * An off-site target is the site's own choice, but its origin is fixed in the file: no placeholder
 * or splat may choose where a visitor is sent (an open redirect through the site's address).
 */
function checkExternalTarget(to: string, fail: (reason: string) => SiteRulesError): void {
  const m = /^(https?):\/\/([^/?#]*)/i.exec(to);
  const host = m?.[2] ?? '';
  if (!host || /[:*@\\]/.test(host)) throw fail(`目标 “${to}” 的域名必须固定写明，不能含占位符、端口或账号`);
  try {
    new URL(to.replace(/:splat|:[A-Za-z_][A-Za-z0-9_]*/g, 'x'));
  } catch {
    throw fail(`目标 “${to}” 不是有效的网址`);
  }
}

function parsePattern(from: string, fail: (reason: string) => SiteRulesError): Pattern {
  if (!from.startsWith('/')) {
    throw fail(
      /^https?:/i.test(from)
        ? '暂不支持按域名匹配的规则，来源必须是以 / 开头的路径'
        : `来源路径 “${from}” 必须以 / 开头`,
    );
  }
  if (from.includes('?') || from.includes('#')) throw fail(`来源路径 “${from}” 不能含 ? 或 #`);
  const raw = from.slice(1).replace(/\/$/, '');
  const parts = raw === '' ? [] : raw.split('/');
  if (parts.length > SITE_RULES_LIMITS.maxSegments) throw fail('来源路径的层级太多');
  const segments: Segment[] = [];
  let splat = false;
  for (const [i, part] of parts.entries()) {
    if (part === '*' && i === parts.length - 1) {
      splat = true;
      break;
    }
    if (part.includes('*')) throw fail('* 只能单独作为来源路径的最后一段，例如 /blog/*');
    if (part === '') throw fail(`来源路径 “${from}” 不能含连续的 /`);
    if (part.startsWith(':')) {
      const name = part.slice(1);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || name === 'splat') throw fail(`占位符 “${part}” 无效`);
      segments.push({ kind: 'placeholder', name });
      continue;
    }
    const decoded = decodeSitePath(part);
    if (decoded === null || decoded === '') throw fail(`来源路径 “${from}” 含无效的字符或 . / .. 段`);
    segments.push({ kind: 'literal', value: decoded });
  }
  return { segments, splat };
}

// ---- _headers ----------------------------------------------------------------------------------

/**
 * What a site may set. Anything else is refused at upload: cookies, HSTS, Location, the
 * credentials of CORS, and every header the platform itself decides. The platform's security
 * headers (the sandbox CSP, nosniff, CORS origin, a preview's no-store and no-referrer) are applied
 * after these and win (serve/site-headers.ts).
 */
const ALLOWED_HEADERS = new Set([
  'cache-control',
  'content-type',
  'content-encoding',
  'content-language',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
  'access-control-max-age',
  'content-security-policy',
  'permissions-policy',
  'referrer-policy',
  'x-frame-options',
  'x-robots-tag',
  'link',
  'timing-allow-origin',
]);

/** One value, later rules replace earlier ones; the others are joined with ', ' as Netlify does. */
const SINGLE_VALUED = new Set([
  'cache-control',
  'content-type',
  'content-encoding',
  'content-language',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'access-control-max-age',
  'referrer-policy',
  'x-frame-options',
]);

/**
 * Types that would make a file an active page or script: decided by its extension, never by a header.
 * Every JavaScript MIME type a browser runs (the HTML standard's list: the `x-` forms, `text/jscript`,
 * `text/livescript` too): with one of them on a `.txt`, `LICENSE` or `.bin`, `<script src>` ran the
 * file under nosniff while the content check read it as text or not at all (an outside review's
 * stealing script, rated high as `.js`, was rated low so).
 */
const ACTIVE_TYPES =
  /^(?:text\/html|text\/xml|application\/xml|(?:text|application)\/(?:x-)?(?:java|ecma)script|text\/jscript|text\/livescript|text\/xsl|multipart\/|[a-z0-9!#$&^_.-]+\/[a-z0-9!#$&^_.+-]*\+xml\s*(?:;|$))/i;

/**
 * One media type and its parameters, nothing else: a comma would start a second type, which
 * Chromium takes over the first (`text/plain; x=,text/html` is a page), and a parameter's value is
 * a token or a quoted string without commas.
 */
const MEDIA_TYPE =
  /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(?:\s*;\s*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^",\\]*"))*$/i;

const VALUE_RULES: Record<string, RegExp> = {
  'content-encoding': /^(?:gzip|br)$/,
  'cross-origin-opener-policy':
    /^(?:same-origin|same-origin-allow-popups|noopener-allow-popups|unsafe-none)$/,
  'cross-origin-embedder-policy': /^(?:require-corp|credentialless|unsafe-none)$/,
  'cross-origin-resource-policy': /^(?:same-origin|same-site|cross-origin)$/,
  'x-frame-options': /^(?:DENY|SAMEORIGIN)$/i,
  'access-control-max-age': /^\d{1,9}$/,
};

/**
 * Whether a Link value may apply a stylesheet: Firefox applies `Link: <url>; rel=stylesheet` to the
 * page, so a `_headers` line could style every page from any host (an attribute-selector keylogger)
 * where neither the content check, which reads the pages' own `<link>` tags, nor the render
 * (Chromium ignores it) sees it (outside review r5). The word anywhere outside the `<url>` parts,
 * however it is quoted or cased, refuses the line.
 */
function linksStylesheet(value: string): boolean {
  return /(?:^|[^a-z0-9-])stylesheet(?:[^a-z0-9-]|$)/i.test(value.replace(/<[^>]*>/g, ' '));
}

export function parseHeaders(text: string): HeaderRule[] {
  const rules: HeaderRule[] = [];
  let current: HeaderRule | null = null;
  for (const [n, line, indented] of lines(text, '_headers')) {
    const fail = (reason: string) => new SiteRulesError('_headers', n, reason);
    if (!indented) {
      if (line.includes(':') && !line.startsWith('/'))
        throw fail('响应头要缩进写在路径下面，路径必须以 / 开头');
      if (/\s/.test(line)) throw fail(`路径 “${line}” 不能含空格`);
      current = { path: parsePattern(line, fail), headers: [] };
      rules.push(current);
      if (rules.length > SITE_RULES_LIMITS.maxRules)
        throw fail(`规则太多，最多 ${SITE_RULES_LIMITS.maxRules} 条`);
      continue;
    }
    if (!current) throw fail('响应头之前要先写一行路径，例如 /*');
    const colon = line.indexOf(':');
    if (colon <= 0) throw fail('响应头要写成 “名称: 值”');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
      throw fail(`响应头名称 “${line.slice(0, colon).trim()}” 无效`);
    if (!ALLOWED_HEADERS.has(name))
      throw fail(`不允许设置响应头 ${line.slice(0, colon).trim()}（站点可设置的响应头见部署说明）`);
    if (value === '') throw fail(`响应头 ${name} 的值为空`);
    if (value.length > SITE_RULES_LIMITS.maxHeaderValueChars) throw fail(`响应头 ${name} 的值太长`);
    // Header values are visible ASCII and spaces: no controls, no CR/LF (header injection).
    if (!/^[\x20-\x7e]+$/.test(value)) throw fail(`响应头 ${name} 的值含不允许的字符`);
    const rule = VALUE_RULES[name];
    if (rule && !rule.test(value)) throw fail(`响应头 ${name} 的值 “${value}” 不受支持`);
    if (name === 'content-type' && (ACTIVE_TYPES.test(value) || !MEDIA_TYPE.test(value))) {
      throw fail(`Content-Type “${value}” 不允许：网页、脚本和 SVG 的类型由文件扩展名决定`);
    }
    if (name === 'link' && linksStylesheet(value)) {
      throw fail('Link 响应头不能引入样式表（rel=stylesheet）：请在网页中用 <link rel="stylesheet"> 引入');
    }
    current.headers.push([name, value]);
  }
  for (const r of rules)
    if (r.headers.length === 0) throw new SiteRulesError('_headers', 0, '有路径下面没有写任何响应头');
  return rules;
}

// ---- Both --------------------------------------------------------------------------------------

/** [line number, text without indentation and trailing spaces, indented], blank and # lines skipped. */
function* lines(text: string, file: '_redirects' | '_headers'): Generator<[number, string, boolean]> {
  if (Buffer.byteLength(text) > SITE_RULES_LIMITS.maxFileBytes) {
    throw new SiteRulesError(file, 0, `文件太大，最多 ${SITE_RULES_LIMITS.maxFileBytes / 1024} KB`);
  }
  const all = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [i, raw] of all.entries()) {
    if (raw.length > SITE_RULES_LIMITS.maxLineChars) throw new SiteRulesError(file, i + 1, '这一行太长');
    if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(raw))
      throw new SiteRulesError(file, i + 1, '含不允许的控制字符');
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    // An inline comment after the rule, as Netlify allows ('/a /b 301 # moved').
    const hash = trimmed.search(/\s#/);
    const line = file === '_redirects' && hash !== -1 ? trimmed.slice(0, hash).trimEnd() : trimmed;
    yield [i + 1, line, /^[ \t]/.test(raw)];
  }
}

/**
 * Parses both files (absent ones are empty). Throws SiteRulesError on the first bad line. Returns
 * null when neither declares anything, so a site without rules is served as if it had none.
 */
export function compileSiteRules(text: SiteRulesText): CompiledSiteRules | null {
  const redirects = text.redirects === undefined ? [] : parseRedirects(text.redirects);
  const headerRules = text.headers === undefined ? [] : parseHeaders(text.headers);
  if (redirects.length === 0 && headerRules.length === 0) return null;
  return { redirects, headerRules, headerSets: new Map() };
}

// ---- Matching ----------------------------------------------------------------------------------

/** A decoded site path ('a/b/', '') as segments, without a trailing empty one. */
function segmentsOf(path: string): string[] {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed === '' ? [] : trimmed.split('/');
}

interface Captures {
  params: Map<string, string> | null;
  splat: string | null;
}

function match(pattern: Pattern, segs: string[]): Captures | null {
  const n = pattern.segments.length;
  if (pattern.splat ? segs.length < n : segs.length !== n) return null;
  let params: Map<string, string> | null = null;
  for (let i = 0; i < n; i++) {
    const s = pattern.segments[i]!;
    if (s.kind === 'literal') {
      if (s.value !== segs[i]) return null;
    } else {
      params ??= new Map();
      params.set(s.name, segs[i]!);
    }
  }
  return { params, splat: pattern.splat ? segs.slice(n).join('/') : null };
}

export type RuleMatch =
  | { kind: 'redirect'; status: RedirectStatus; location: string }
  /** 200 or 404: serve the file at `path` (decoded, site-relative) for `requestPath`. */
  | { kind: 'rewrite'; status: 200 | 404; path: string; requestPath: string };

/**
 * The first rule (forced ones only, or unforced ones only) that matches `path`, with its target
 * filled in; null when none does, or when a filled-in target would leave the site's paths.
 */
export function matchRedirect(
  rules: CompiledSiteRules,
  path: string,
  query: string,
  forced: boolean,
): RuleMatch | null {
  if (rules.redirects.length === 0) return null;
  const segs = segmentsOf(path);
  for (const rule of rules.redirects) {
    if (rule.force !== forced) continue;
    const captures = match(rule.from, segs);
    if (!captures) continue;
    const target = fill(rule, captures);
    if (target === null) continue;
    if (rule.status === 200 || rule.status === 404) {
      const q = target.indexOf('?');
      const decoded = decodeSitePath(encodePath((q === -1 ? target : target.slice(0, q)).slice(1)));
      if (decoded === null) continue;
      return { kind: 'rewrite', status: rule.status, path: decoded, requestPath: path };
    }
    const withQuery = target.includes('?') || query === '' ? target : target + query;
    if (rule.external) {
      return { kind: 'redirect', status: rule.status, location: withQuery };
    }
    // Site-absolute: relative to the request, so it stays under /sites/{id}/, /preview/{token}/ or
    // a project's own host alike, and can never read as another host ('//evil').
    const depth = path.split('/').length - 1;
    const location = `./${'../'.repeat(depth)}${encodePath(withQuery.slice(1))}`;
    return { kind: 'redirect', status: rule.status, location };
  }
  return null;
}

/** The target with placeholders and the splat put in (their decoded values); null if unsafe. */
function fill(rule: RedirectRule, captures: Captures): string | null {
  // Values go in percent-encoded ('/' kept between a splat's segments): a '%' or '?' of the path
  // asked stays a character of the target, never an escape or a query.
  const out = rule.to.replace(/:(splat|[A-Za-z_][A-Za-z0-9_]*)/g, (whole, name: string) => {
    if (name === 'splat') return encodeValue(captures.splat ?? '');
    const value = captures.params?.get(name);
    return value === undefined ? whole : encodeValue(value);
  });
  if (rule.external) {
    // The origin was fixed in the file; a value put into the path can't move it.
    try {
      const fixed = new URL(rule.to.replace(/:(splat|[A-Za-z_][A-Za-z0-9_]*)/g, 'x'));
      const url = new URL(encodePathOfUrl(out));
      return url.origin === fixed.origin ? url.href : null;
    } catch {
      return null;
    }
  }
  if (out.startsWith('//')) return null;
  return out;
}

/** A decoded path value, segment by segment. */
function encodeValue(value: string): string {
  return value.split('/').map(encodeURIComponent).join('/');
}

/** Percent-encodes what the file wrote unencoded, keeping escapes, '/' and the query's characters. */
function encodePath(path: string): string {
  return path
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]/g, (c) => encodeURIComponent(c))
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
}

function encodePathOfUrl(url: string): string {
  const m = /^(https?:\/\/[^/?#]*)(.*)$/i.exec(url);
  return m ? m[1]! + encodePath(m[2]!) : url;
}

/** The headers the site's _headers gives `path` (merged over every matching rule), or null. */
export function matchHeaderRules(
  rules: CompiledSiteRules,
  path: string,
): Readonly<Record<string, string>> | null {
  if (rules.headerRules.length === 0) return null;
  const segs = segmentsOf(path);
  let key = '';
  for (let i = 0; i < rules.headerRules.length; i++) {
    if (match(rules.headerRules[i]!.path, segs)) key += `${i},`;
  }
  if (key === '') return null;
  let set = rules.headerSets.get(key);
  if (!set) {
    const merged: Record<string, string> = {};
    for (const i of key.slice(0, -1).split(',')) {
      for (const [name, value] of rules.headerRules[Number(i)]!.headers) {
        merged[name] =
          merged[name] === undefined || SINGLE_VALUED.has(name) ? value : `${merged[name]}, ${value}`;
      }
    }
    set = Object.freeze(merged);
    // Paths are endless, matching rule sets are not: at most one per subset actually seen.
    if (rules.headerSets.size < 1024) rules.headerSets.set(key, set);
  }
  return set;
}

/**
 * The site's headers under the platform's (which win), as one object kept per pair so answers
 * prepared from it are kept too (serve/site-answer.ts keys them by identity). In a preview
 * (sandboxed: an opaque origin) COOP and COEP are left out: a browser refuses a sandboxed document
 * that sends COOP.
 */
const combined = new WeakMap<object, WeakMap<object, Readonly<Record<string, string>>>>();
export function withSiteHeaders(
  platform: Readonly<Record<string, string>>,
  own: Readonly<Record<string, string>> | null,
): Readonly<Record<string, string>> {
  if (own === null) return platform;
  let byPlatform = combined.get(own);
  if (!byPlatform) {
    byPlatform = new WeakMap();
    combined.set(own, byPlatform);
  }
  let merged = byPlatform.get(platform);
  if (!merged) {
    const copy: Record<string, string> = { ...own };
    if (platform['content-security-policy']?.includes('sandbox')) {
      delete copy['cross-origin-opener-policy'];
      delete copy['cross-origin-embedder-policy'];
    }
    merged = Object.freeze({ ...copy, ...platform });
    byPlatform.set(platform, merged);
  }
  return merged;
}
