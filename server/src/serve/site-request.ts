/**
 * What a request for a site address means, decided once for every serving path (the Fastify route
 * on the app and sites ports, previews, project subdomains, and the fast path): which stored file
 * answers and with what status, or a redirect, or nothing; and whether the answer counts as a page
 * view (docs/architecture.md "Serving a site"). Pure and synchronous: it reads the deployment's file
 * table and its routing (serve/site-rules.ts), both in memory, and nothing else.
 *
 * The order, after Netlify's (docs/product.md "A site's own routing"): a forced rule (`301!`), the
 * file itself or its folder's index, a folder asked without its slash, a clean URL (`/about` →
 * `about.html`) when the owner turned them on, the site's other rules, the entry file at the root,
 * the SPA fallback (index.html) when turned on, the site's 404.html, and at last the platform's 404.
 */
import { extensionOf, fileTypeOf } from '@sitehall/contracts';
import { isHtml } from './content-types.js';
import type { SiteFile } from './resolve.js';
import { decodeSitePath } from './site-path.js';
import { type CompiledSiteRules, matchHeaderRules, matchRedirect, type RuleMatch } from './site-rules.js';

/** How a deployment is served: its files, entry file and the routing its owner and files declare. */
export interface ServedSite {
  files: ReadonlyMap<string, SiteFile>;
  entryFile: string | null;
  /** null: no _redirects, no _headers, SPA fallback and clean URLs off (the cost of today, nothing more). */
  routing: SiteRouting | null;
}

/** A deployment as the serving paths keep it in memory (services/site-index.ts caches them). */
export interface DeploymentIndex extends ServedSite {
  deploymentId: number;
  projectId: number;
  entryFile: string | null;
  lastModified: Date;
  files: Map<string, SiteFile>;
  /**
   * Its project's site name when it was loaded (docs/decisions/names.md): a rename drops the
   * project's cached deployments, so this is the name now.
   */
  siteName: string | null;
}

export interface SiteRouting {
  rules: CompiledSiteRules | null;
  /** Paths that match no file are answered with index.html (history-routed apps). */
  spaFallback: boolean;
  /** `/about` finds `about.html`. */
  cleanUrls: boolean;
}

export interface SiteRequestContext {
  method: string;
  /** A preview (/preview/{token}/): never a view, and a root without an entry gets its own page. */
  preview: boolean;
  /** Sec-Purpose or Purpose says prefetch: not someone looking at the page. */
  prefetch: boolean;
}

export type SiteDecision =
  /**
   * A stored file, with status 200 or 404 (the site's 404.html, or a rule's 404). `headers`: the
   * site's own headers for this path (serve/site-rules.ts, allow-listed), or null.
   */
  | {
      kind: 'file';
      status: 200 | 404;
      file: SiteFile;
      countsView: boolean;
      /**
       * What the owner's analytics count this view as (docs/notifications.md "Owner analytics"):
       * the file served, or the address asked when a route of the site's own answered it (the
       * single-page app fallback, a rule's rewrite), since every route of an app is its index.html.
       */
      page: string;
      headers: Readonly<Record<string, string>> | null;
    }
  /**
   * `location`: relative to the request ('./docs/?q', '././../new/'), so it stays under whatever
   * prefix the site is served at, or a full http(s) URL a rule names.
   */
  | { kind: 'redirect'; status: 301 | 302 | 303 | 307 | 308; location: string }
  /** A preview whose version has neither index.html nor an entry file, asked at its root. */
  | { kind: 'no-entry' }
  | { kind: 'not-found' };

const NOT_FOUND: SiteDecision = Object.freeze({ kind: 'not-found' });
const NO_ENTRY: SiteDecision = Object.freeze({ kind: 'no-entry' });
const INDEX_NAMES = ['index.html', 'index.htm'];
const NOT_FOUND_PAGE = '404.html';
/** The routing files themselves are configuration, never served (as on Netlify). */
const ROUTING_FILES = new Set(['_redirects', '_headers']);

/** `rawPath`: the raw path after the site prefix, query included ('docs/a%20b.html?x=1'). */
export function decideSiteRequest(site: ServedSite, rawPath: string, ctx: SiteRequestContext): SiteDecision {
  const path = decodeSitePath(rawPath);
  if (path === null) return NOT_FOUND;
  const routing = site.routing;
  if (routing === null) {
    // The usual cases — a file by its own name, a folder's index.html — straight from the table.
    const direct = site.files.get(path === '' || path.endsWith('/') ? `${path}index.html` : path);
    if (direct) return fileDecision(direct, 200, ctx, null);
    return resolveRest(site, path, queryOf(rawPath), ctx, null);
  }
  return decideRouted(site, routing, path, queryOf(rawPath), ctx);
}

function queryOf(rawPath: string): string {
  const q = rawPath.indexOf('?');
  return q === -1 ? '' : rawPath.slice(q);
}

/** `route`: the address asked, when a route of the site answered it with another file (`page`). */
function fileDecision(
  file: SiteFile,
  status: 200 | 404,
  ctx: SiteRequestContext,
  headers: Readonly<Record<string, string>> | null,
  route?: string,
): SiteDecision {
  return {
    kind: 'file',
    status,
    file,
    countsView:
      status === 200 && !ctx.preview && ctx.method === 'GET' && !ctx.prefetch && isHtml(file.mime_type),
    page: route ?? file.path,
    headers,
  };
}

/** A file by its name, or a folder's index. */
function fileAt(files: ReadonlyMap<string, SiteFile>, path: string): SiteFile | undefined {
  if (path === '' || path.endsWith('/')) return firstIndex(files, path);
  return files.get(path);
}

function firstIndex(files: ReadonlyMap<string, SiteFile>, dir: string): SiteFile | undefined {
  for (const name of INDEX_NAMES) {
    const file = files.get(dir + name);
    if (file) return file;
  }
  return undefined;
}

/** What follows a miss on the file itself when the site declares nothing: today's resolution. */
function resolveRest(
  site: ServedSite,
  path: string,
  query: string,
  ctx: SiteRequestContext,
  headers: Readonly<Record<string, string>> | null,
): SiteDecision {
  const files = site.files;
  if (path === '' || path.endsWith('/')) {
    let index = firstIndex(files, path);
    if (!index && path === '' && site.entryFile) index = files.get(site.entryFile);
    if (index) return fileDecision(index, 200, ctx, headers);
  } else if (firstIndex(files, `${path}/`)) {
    return folderRedirect(path, query);
  }
  return notFoundAnswer(site, path, ctx, headers);
}

/**
 * A folder asked without its slash: relative to the request URL, so it works under /sites/{id}/
 * and /preview/{token}/ alike; './' keeps a name such as 'a:b' from reading as a URL scheme.
 */
function folderRedirect(path: string, query: string): SiteDecision {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return { kind: 'redirect', status: 302, location: `./${encodeURIComponent(name)}/${query}` };
}

function notFoundAnswer(
  site: ServedSite,
  path: string,
  ctx: SiteRequestContext,
  headers: Readonly<Record<string, string>> | null,
): SiteDecision {
  const page = site.files.get(NOT_FOUND_PAGE);
  if (page) return fileDecision(page, 404, ctx, headers);
  return ctx.preview && path === '' && !site.entryFile ? NO_ENTRY : NOT_FOUND;
}

function decideRouted(
  site: ServedSite,
  routing: SiteRouting,
  path: string,
  query: string,
  ctx: SiteRequestContext,
): SiteDecision {
  const files = site.files;
  const rules = routing.rules;
  const headers = rules ? matchHeaderRules(rules, path) : null;
  const hidden = ROUTING_FILES.has(path);
  if (rules) {
    const forced = matchRedirect(rules, path, query, true);
    if (forced) {
      const answer = ruleAnswer(site, forced, ctx);
      if (answer) return answer;
    }
  }
  const direct = hidden ? undefined : fileAt(files, path);
  if (direct) return fileDecision(direct, 200, ctx, headers);
  if (path !== '' && !path.endsWith('/') && firstIndex(files, `${path}/`)) return folderRedirect(path, query);
  if (routing.cleanUrls && path !== '' && !path.endsWith('/') && !hidden) {
    const clean = files.get(`${path}.html`);
    if (clean) return fileDecision(clean, 200, ctx, headers);
  }
  if (rules) {
    const matched = matchRedirect(rules, path, query, false);
    if (matched) {
      const answer = ruleAnswer(site, matched, ctx);
      if (answer) return answer;
    }
  }
  if (path === '' && site.entryFile) {
    const entry = files.get(site.entryFile);
    if (entry) return fileDecision(entry, 200, ctx, headers);
  }
  if (routing.spaFallback && !namesAsset(path)) {
    const index = files.get('index.html');
    if (index) return fileDecision(index, 200, ctx, headers, path);
  }
  return notFoundAnswer(site, path, ctx, headers);
}

/**
 * A path named like a file a page loads (`app.js`, `logo.png`, `list.json`: a known file type that
 * is not a page): the SPA fallback leaves it missing, for index.html in its place only breaks it
 * ("Unexpected token '<'") and hides what is missing. A route whose last segment has a dot naming
 * no file type (`users/john.doe`, `v1.2`) still falls back (connect-history-api-fallback's dot
 * rule, narrowed to known types; docs/product.md "The owner's switches").
 */
function namesAsset(path: string): boolean {
  const type = fileTypeOf(extensionOf(path));
  return type !== undefined && !isHtml(type.mime);
}

/**
 * What a matched rule answers: a redirect, or the file its target names (200 or 404); null when a
 * rewrite's target is no file, and the search goes on (Netlify does the same).
 */
function ruleAnswer(site: ServedSite, match: RuleMatch, ctx: SiteRequestContext): SiteDecision | null {
  if (match.kind === 'redirect') {
    return { kind: 'redirect', status: match.status, location: match.location };
  }
  const target = match.path;
  if (ROUTING_FILES.has(target)) return null;
  const file = fileAt(site.files, target);
  if (!file) return null;
  // A rewrite's headers are those of the address asked, as the visitor sees it.
  const headers = site.routing?.rules ? matchHeaderRules(site.routing.rules, match.requestPath) : null;
  return fileDecision(
    file,
    match.status,
    ctx,
    headers,
    match.requestPath === '' ? undefined : match.requestPath,
  );
}
