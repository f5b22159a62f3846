/**
 * One render (docs/render.md): the version's entry page opened as a visitor would, at a fake
 * origin that nothing listens on (`http://site-{deployment}.render.invalid/`). Every request is
 * answered by the route handler: the site's own host from the version's files (the same
 * index/404 resolution and headers as the live site on the sites port: no preview sandbox, so the
 * page runs as visitors get it), every other host recorded and aborted (or, with the admin
 * setting, a public stylesheet, font or image fetched from a checked public address). The browser's
 * own network is a dead proxy besides, so nothing it does reaches beyond this process.
 *
 * The page is opened twice, as a desktop and as a phone visitor in China (profiles.ts), each with a
 * fake clock; the visitor (visitor.ts) types canaries into it, and every request, beacon and
 * WebSocket frame is searched for them (canaries.ts).
 */
import type { Readable } from 'node:stream';
import type { Browser, Page, Request, Route } from 'playwright-core';
import { resolveSiteFile, type SiteFile } from '../serve/resolve.js';
import { siteSecurityHeaders } from '../serve/site-headers.js';
import { type CanaryKind, type Encoding, findCanaries, findTypedCanaries, keyPieces } from './canaries.js';
import { DESKTOP, majorOf, PHONE, type ProfileName, type RenderProfile, visitorScript } from './profiles.js';
import { fetchPublicAsset } from './public-assets.js';
import { visit } from './visitor.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;
/** The load (network idle, or this at most) of each pass. */
export const LOAD_TIMEOUT_MS = 10_000;
const SCREENSHOT_TIMEOUT_MS = 5_000;
/** The visitor's time in one pass (typing, pressing, the fake clock's jumps). */
const VISIT_TIMEOUT_MS = 5_000;
/** What is kept of each kind of observation: enough for the reviewer, bounded for the report. */
const KEEP = 20;

export interface RenderSite {
  /** The deployment (names the fake origin). */
  id: number;
  entryFile: string | null;
  lookup: (path: string) => Promise<SiteFile | undefined>;
  read: (file: SiteFile) => Promise<Readable>;
}

export interface ExternalRequest {
  method: string;
  url: string;
  host: string;
  resourceType: string;
  /** Loaded under the public-assets setting (else recorded and aborted). */
  allowed: boolean;
}

/** A canary the visitor typed, found in a request the page tried. */
export interface CanaryLeak {
  kind: CanaryKind;
  /** The field it was typed into (name, id, placeholder or label). */
  field: string;
  host: string;
  url: string;
  /** How it left: the request's type (fetch, xhr, ping, image, document, websocket...). */
  via: string;
  encoding: Encoding;
  /** Another host than the site's own. */
  external: boolean;
  profile: ProfileName;
}

export interface Observations {
  externalRequests: ExternalRequest[];
  /** Main-frame navigations after the first (meta refresh, location changes, redirects). */
  navigations: Array<{ url: string; host: string; external: boolean }>;
  downloads: string[];
  dialogs: Array<{ type: string; message: string }>;
  /** Permission APIs the page called (geolocation, notifications, camera/microphone, ...). */
  permissions: string[];
  consoleErrors: string[];
  /** Paths of the site asked at run time that it does not have. */
  missing: string[];
  /** Canaries typed by the visitor that the page sent (to another host or its own). */
  leaks: CanaryLeak[];
  /** `load` had not come by the deadline: the picture and observations are what was there then. */
  loadTimedOut: boolean;
  /** The load's deadline of this render (ms). */
  loadTimeoutMs: number;
  /** The visitor profiles the page was opened with. */
  profiles: ProfileName[];
}

export interface RenderResult {
  screenshot: Buffer;
  observations: Observations;
}

/** The page could not be pictured in time; what it did until then is in `observations`. */
export class RenderTimeout extends Error {
  constructor(
    message: string,
    readonly observations: Observations,
  ) {
    super(message);
  }
}

export const siteOrigin = (id: number) => `http://site-${id}.render.invalid`;

export const emptyObservations = (): Observations => ({
  externalRequests: [],
  navigations: [],
  downloads: [],
  dialogs: [],
  permissions: [],
  consoleErrors: [],
  missing: [],
  leaks: [],
  loadTimedOut: false,
  loadTimeoutMs: LOAD_TIMEOUT_MS,
  profiles: [],
});

/** Reports the page's calls of permission APIs through an exposed binding, before any script runs. */
const PERMISSION_PROBE = `(() => {
  const report = (what) => { try { window.__sitehallPermission(what); } catch {} };
  const wrap = (obj, name, what) => {
    if (!obj || typeof obj[name] !== 'function') return;
    const orig = obj[name];
    obj[name] = function (...args) { report(what); return orig.apply(this, args); };
  };
  try { wrap(navigator.geolocation, 'getCurrentPosition', 'geolocation'); } catch {}
  try { wrap(navigator.geolocation, 'watchPosition', 'geolocation'); } catch {}
  try { wrap(navigator.mediaDevices, 'getUserMedia', 'camera/microphone'); } catch {}
  try { wrap(window.Notification, 'requestPermission', 'notifications'); } catch {}
  try { wrap(navigator.clipboard, 'readText', 'clipboard'); } catch {}
})();`;

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function push<T>(list: T[], item: T) {
  if (list.length < KEEP) list.push(item);
}

async function bodyOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves to 'late' when `p` has not settled within `ms` (p's outcome is then ignored). */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), Math.max(0, ms));
  });
  p.catch(() => {});
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Renders the site's entry page, as a desktop visitor (the picture) and then as a phone visitor;
 * throws RenderTimeout when the page could not be pictured within the limits. A page whose `load`
 * never comes is pictured at the deadline, with `loadTimedOut` set.
 */
export async function renderPage(
  browser: Browser,
  site: RenderSite,
  opts: { allowPublicAssets: boolean; loadTimeoutMs?: number },
): Promise<RenderResult> {
  const obs = emptyObservations();
  obs.loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const run = { browser, site, opts, obs, chrome: majorOf(browser.version()) };
  const screenshot = await renderPass(run, DESKTOP, true);
  // A page that stalled its load has shown what it does; a second wait would only double the cost.
  if (!obs.loadTimedOut && screenshot) await renderPass(run, PHONE, false).catch(() => {});
  if (!screenshot) throw new RenderTimeout('screenshot timeout', obs);
  return { screenshot, observations: obs };
}

interface Run {
  browser: Browser;
  site: RenderSite;
  opts: { allowPublicAssets: boolean; loadTimeoutMs?: number };
  obs: Observations;
  chrome: string;
}

/** One pass: opens the page with a profile, pictures it (when asked), lets the visitor in. */
async function renderPass(run: Run, profile: RenderProfile, picture: boolean): Promise<Buffer | null> {
  const { browser, site, opts, obs } = run;
  const loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const origin = siteOrigin(site.id);
  const ownHost = hostOf(origin);
  // What visitors get on the sites port: the live site's headers, without the preview's sandbox;
  // the fake origin and the route handler are the isolation.
  const headers = siteSecurityHeaders('separate-origin');
  const keys = new Map<string, { pieces: string; url: string; via: string }>();
  const fields = new Map<CanaryKind, string>();
  obs.profiles.push(profile.name);
  const context = await browser.newContext(profile.context(run.chrome));
  let hung = false;
  try {
    await context.exposeBinding('__sitehallPermission', (_source, what: unknown) => {
      if (typeof what === 'string' && !obs.permissions.includes(what)) push(obs.permissions, what);
    });
    await context.addInitScript(visitorScript(profile));
    await context.addInitScript(PERMISSION_PROBE);
    await context.clock.install();
    // WebSockets are not seen by route(): each one is recorded and held open with no server behind
    // it, so the page sends what it meant to and its frames are read.
    await context.routeWebSocket(/.*/, (ws) => {
      record({ method: 'WEBSOCKET', url: ws.url(), resourceType: 'websocket', allowed: false });
      ws.onMessage((message) => {
        const text = typeof message === 'string' ? message : message.toString('utf8');
        look(ws.url(), text, 'websocket');
      });
    });
    await context.route('**/*', (route) => answer(route, route.request()));
    const page = await context.newPage();
    watch(page);

    const started = Date.now();
    try {
      await page.goto(`${origin}/`, { waitUntil: 'load', timeout: loadTimeoutMs });
    } catch (err) {
      // `load` never came: the picture and observations are taken at the deadline anyway. A
      // navigation away during the load interrupts goto: the page still renders what it shows.
      if (Date.now() - started >= loadTimeoutMs - 100) obs.loadTimedOut = true;
      else if (obs.navigations.length === 0) throw err;
    }
    let screenshot: Buffer | null = null;
    if (picture) {
      const left = loadTimeoutMs - (Date.now() - started);
      if (left > 0) await page.waitForLoadState('networkidle', { timeout: left }).catch(() => {});
      const shot = await within(
        page
          .screenshot({ type: 'png', timeout: SCREENSHOT_TIMEOUT_MS, animations: 'disabled' })
          .catch(() => null),
        SCREENSHOT_TIMEOUT_MS + 500,
      );
      if (shot === 'late' || !shot) {
        hung = true;
        return null;
      }
      screenshot = shot;
    }
    const visited = within(
      visit(page, { deadline: Date.now() + VISIT_TIMEOUT_MS, fields }),
      VISIT_TIMEOUT_MS + 2_000,
    );
    if ((await visited) === 'late') hung = true;
    sendKeys();
    return screenshot;
  } finally {
    // A hung renderer may never close its context: the caller then replaces the whole browser.
    const closed = await within(
      context.close().catch(() => {}),
      1_000,
    );
    if (hung || closed === 'late')
      await within(
        browser.close().catch(() => {}),
        2_000,
      );
  }

  /** Another host's request, once per method and address over both passes. */
  function record(r: Omit<ExternalRequest, 'host'>): void {
    const host = hostOf(r.url);
    if (host === ownHost) return;
    if (!obs.externalRequests.some((e) => e.method === r.method && e.url === r.url.slice(0, 500)))
      push(obs.externalRequests, { ...r, url: r.url.slice(0, 500), host });
  }

  /** Looks for the canaries in what one request carried. */
  function look(url: string, body: string, via: string): void {
    const host = hostOf(url);
    for (const hit of findCanaries(`${url}\n${body}`)) leak(hit.kind, hit.encoding, host, url, via);
    // A logger that sends one key per request: the short values, joined host by host.
    const pieces = keyPieces(url, body);
    if (pieces.length > 0) {
      const k = keys.get(host) ?? { pieces: '', url, via };
      k.pieces += pieces.join('');
      if (k.pieces.length < 4096) keys.set(host, k);
    }
  }

  function sendKeys(): void {
    for (const [host, k] of keys)
      for (const hit of findTypedCanaries(k.pieces)) leak(hit.kind, 'keys', host, k.url, k.via);
  }

  function leak(kind: CanaryKind, encoding: Encoding, host: string, url: string, via: string): void {
    if (obs.leaks.some((l) => l.kind === kind && l.host === host)) return;
    push(obs.leaks, {
      kind,
      field: fields.get(kind) ?? '',
      host,
      url: url.slice(0, 300),
      via,
      encoding,
      external: host !== ownHost,
      profile: profile.name,
    });
  }

  function watch(page: Page): void {
    let firstNavigation = true;
    page.on('request', (req) => {
      if (!req.isNavigationRequest() || req.frame() !== page.mainFrame()) return;
      if (firstNavigation) {
        firstNavigation = false;
        return;
      }
      const host = hostOf(req.url());
      if (!obs.navigations.some((n) => n.url === req.url()))
        push(obs.navigations, { url: req.url(), host, external: host !== ownHost });
    });
    page.on('download', (d) => {
      if (!obs.downloads.includes(d.url())) push(obs.downloads, d.url());
      void d.cancel().catch(() => {});
    });
    page.on('dialog', (d) => {
      const message = d.message().slice(0, 160);
      if (!obs.dialogs.some((x) => x.type === d.type() && x.message === message))
        push(obs.dialogs, { type: d.type(), message });
      void d.dismiss().catch(() => {});
    });
    const error = (text: string) => {
      // A request to another host fails here because the render aborts it, not for visitors.
      if (/Failed to fetch|NetworkError when attempting/.test(text)) return;
      if (!obs.consoleErrors.includes(text)) push(obs.consoleErrors, text);
    };
    page.on('console', (msg) => {
      // Resources that failed are reported by what they are (missing, external), not as console text.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        error(msg.text().slice(0, 300));
    });
    page.on('pageerror', (err) => error(`${err.name || 'Error'}: ${err.message}`.slice(0, 300)));
  }

  async function answer(route: Route, req: Request): Promise<void> {
    try {
      const url = new URL(req.url());
      // Canaries in the URL or body of any request, the site's own included (information there).
      const body = req.postDataBuffer();
      look(req.url(), body ? body.toString('utf8') : '', req.resourceType());
      if (url.host === ownHost && url.protocol === 'http:') return await answerOwn(route, url);
      const external = {
        method: req.method(),
        url: req.url(),
        resourceType: req.resourceType(),
        allowed: false,
      };
      if (
        opts.allowPublicAssets &&
        req.method() === 'GET' &&
        ['stylesheet', 'font', 'image'].includes(req.resourceType())
      ) {
        const asset = await fetchPublicAsset(url);
        if (asset) {
          record({ ...external, allowed: true });
          return await route.fulfill({
            status: asset.status,
            headers: { 'content-type': asset.contentType, 'access-control-allow-origin': '*' },
            body: asset.body,
          });
        }
      }
      record(external);
      await route.abort('blockedbyclient');
    } catch {
      await route.abort('failed').catch(() => {});
    }
  }

  async function answerOwn(route: Route, url: URL): Promise<void> {
    let path: string;
    try {
      path = decodeURIComponent(url.pathname).normalize('NFC').replace(/^\/+/, '');
    } catch {
      path = '';
    }
    const resolved = await resolveSiteFile(site.lookup, path, {
      entryFile: site.entryFile,
      query: url.search,
    });
    if ((!resolved || resolved.kind === 'not-found-page') && !obs.missing.includes(`/${path}`))
      push(obs.missing, `/${path}`);
    if (!resolved) {
      await route.fulfill({ status: 404, headers, contentType: 'text/plain; charset=utf-8', body: '404' });
      return;
    }
    if (resolved.kind === 'redirect') {
      await route.fulfill({ status: 302, headers: { ...headers, location: resolved.location } });
      return;
    }
    const body = await bodyOf(await site.read(resolved.file));
    await route.fulfill({
      status: resolved.status,
      headers: { ...headers, 'content-type': resolved.file.mime_type },
      body,
    });
  }
}
