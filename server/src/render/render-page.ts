/**
 * One render (docs/render.md): the version's entry page opened as a visitor would, at a fake
 * origin that nothing listens on (`http://site-{deployment}.render.invalid/`). Every request is
 * answered by page.route: the site's own host from the version's files (the same index/404
 * resolution and sandbox headers as /preview), every other host recorded and aborted (or, with the
 * admin setting, a public stylesheet, font or image fetched from a checked public address). The
 * browser's own network is a dead proxy besides, so nothing it does reaches beyond this process.
 */
import type { Readable } from 'node:stream';
import type { Browser, Request, Route } from 'playwright-core';
import { resolveSiteFile, type SiteFile } from '../serve/resolve.js';
import { siteSecurityHeaders } from '../serve/site-headers.js';
import { fetchPublicAsset } from './public-assets.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;
/** The load (network idle, or this at most) and the whole render. */
export const LOAD_TIMEOUT_MS = 10_000;
const SCREENSHOT_TIMEOUT_MS = 5_000;
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
}

export interface RenderResult {
  screenshot: Buffer;
  observations: Observations;
}

export class RenderTimeout extends Error {}

export const siteOrigin = (id: number) => `http://site-${id}.render.invalid`;

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

/**
 * Renders the site's entry page in a fresh context of the browser; throws RenderTimeout when the
 * page never finished loading (or could not be pictured) within the limits.
 */
export async function renderPage(
  browser: Browser,
  site: RenderSite,
  opts: { allowPublicAssets: boolean; loadTimeoutMs?: number },
): Promise<RenderResult> {
  const loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const origin = siteOrigin(site.id);
  const ownHost = hostOf(origin);
  const obs: Observations = {
    externalRequests: [],
    navigations: [],
    downloads: [],
    dialogs: [],
    permissions: [],
    consoleErrors: [],
    missing: [],
  };
  const headers = siteSecurityHeaders('sandboxed', { preview: true });
  const context = await browser.newContext({
    viewport: VIEWPORT,
    acceptDownloads: false,
    serviceWorkers: 'block',
    permissions: [],
    locale: 'zh-CN',
  });
  try {
    await context.exposeBinding('__sitehallPermission', (_source, what: unknown) => {
      if (typeof what === 'string' && !obs.permissions.includes(what)) push(obs.permissions, what);
    });
    await context.addInitScript(PERMISSION_PROBE);
    // WebSockets are not seen by route(): each one is recorded and closed.
    await context.routeWebSocket(/.*/, (ws) => {
      push(obs.externalRequests, {
        method: 'WEBSOCKET',
        url: ws.url(),
        host: hostOf(ws.url()),
        resourceType: 'websocket',
        allowed: false,
      });
      void ws.close().catch(() => {});
    });
    await context.route('**/*', (route) => answer(route, route.request()));
    const page = await context.newPage();
    let firstNavigation = true;
    page.on('request', (req) => {
      if (!req.isNavigationRequest() || req.frame() !== page.mainFrame()) return;
      if (firstNavigation) {
        firstNavigation = false;
        return;
      }
      const host = hostOf(req.url());
      push(obs.navigations, { url: req.url(), host, external: host !== ownHost });
    });
    page.on('download', (d) => {
      push(obs.downloads, d.url());
      void d.cancel().catch(() => {});
    });
    page.on('dialog', (d) => {
      push(obs.dialogs, { type: d.type(), message: d.message().slice(0, 160) });
      void d.dismiss().catch(() => {});
    });
    page.on('console', (msg) => {
      // Resources that failed are reported by what they are (missing, external), not as console text.
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        push(obs.consoleErrors, msg.text().slice(0, 300));
    });
    page.on('pageerror', (err) => push(obs.consoleErrors, String(err.message).slice(0, 300)));

    const started = Date.now();
    try {
      await page.goto(`${origin}/`, { waitUntil: 'load', timeout: loadTimeoutMs });
    } catch (err) {
      // A navigation away during the load interrupts goto: the page still renders what it shows.
      if (Date.now() - started >= loadTimeoutMs - 100) throw new RenderTimeout('load timeout');
      if (obs.navigations.length === 0) throw err;
    }
    const left = loadTimeoutMs - (Date.now() - started);
    if (left > 0) await page.waitForLoadState('networkidle', { timeout: left }).catch(() => {});
    let screenshot: Buffer;
    try {
      screenshot = await page.screenshot({
        type: 'png',
        timeout: SCREENSHOT_TIMEOUT_MS,
        animations: 'disabled',
      });
    } catch {
      throw new RenderTimeout('screenshot timeout');
    }
    return { screenshot, observations: obs };
  } finally {
    // A hung renderer may never close its context: the caller then replaces the whole browser.
    await Promise.race([context.close().catch(() => {}), new Promise((r) => setTimeout(r, 1_000).unref())]);
  }

  async function answer(route: Route, req: Request): Promise<void> {
    try {
      const url = new URL(req.url());
      if (url.host === ownHost && url.protocol === 'http:') return await answerOwn(route, url);
      const external: ExternalRequest = {
        method: req.method(),
        url: req.url().slice(0, 500),
        host: url.host,
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
          external.allowed = true;
          push(obs.externalRequests, external);
          return await route.fulfill({
            status: asset.status,
            headers: { 'content-type': asset.contentType, 'access-control-allow-origin': '*' },
            body: asset.body,
          });
        }
      }
      push(obs.externalRequests, external);
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
    if (!resolved || resolved.kind === 'not-found-page') push(obs.missing, `/${path}`);
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
