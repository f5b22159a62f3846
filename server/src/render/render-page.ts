/**
 * One render (docs/render.md): the version's entry page opened as a visitor would, at the live
 * site's own address (`RenderSite.address`: what a visitor's address bar shows, host and path), so
 * the page can't tell the render from a visitor by where it runs. Nothing is reached there: every
 * request is answered by the route handler: the site's own host from the version's files (the same
 * index/404 resolution and headers as the live site on the sites port: no preview sandbox, so the
 * page runs as visitors get it), every other host recorded and aborted (or, with the admin
 * setting, a public stylesheet, font or image fetched from a checked public address). The browser's
 * own network is a dead proxy besides, so nothing it does reaches beyond this process.
 *
 * The page is opened as a desktop visitor in China, and again as a phone visitor when it can tell
 * the two apart (profiles.ts, docs/render.md "As a visitor arrives"), each with a fake clock; the
 * visitor (visitor.ts) types canaries drawn for this render into it, and every request, beacon,
 * WebSocket frame and link hint is searched for them (canaries.ts).
 */
import type { Readable } from 'node:stream';
import type { Browser, Page, Request, Route } from 'playwright-core';
import type { SiteFile } from '../serve/resolve.js';
import { rootRescueLocation } from '../serve/root-rescue.js';
import { siteSecurityHeaders } from '../serve/site-headers.js';
import { decideSiteRequest, type SiteDecision, type SiteRouting } from '../serve/site-request.js';
import { withSiteHeaders } from '../serve/site-rules.js';
import { Canaries, type CanaryKind, type CanaryValues, type Encoding, keyPieces } from './canaries.js';
import { DESKTOP, majorOf, PHONE, type ProfileName, type RenderProfile, visitorScript } from './profiles.js';
import { fetchPublicAsset } from './public-assets.js';
import { PassScript } from './stealth.js';
import { sameOriginFrames, visit } from './visitor.js';

export const VIEWPORT = { width: 1280, height: 800 } as const;
/** The load (network idle, or this at most) of each pass. */
export const LOAD_TIMEOUT_MS = 10_000;
const SCREENSHOT_TIMEOUT_MS = 5_000;
/**
 * The visitor's time in one pass (typing, pressing, the fake clock's jumps). A visit of a login
 * of two fields takes about 3 s on an idle machine, of six about 8 s (keys typed at a person's
 * pace, 40–110 ms apart: visitor.ts), and more at a load of 40; the limit is what a page that
 * stalls the visitor can hold the worker for.
 */
const VISIT_TIMEOUT_MS = 20_000;
/** What is kept of each kind of observation: enough for the reviewer, bounded for the report. */
const KEEP = 20;
/**
 * What one render holds of the site's files in the server's memory (Playwright's fulfil takes a
 * whole body, not a stream): each file is read once per render and kept for its other requests,
 * a file over RENDER_FILE_MAX_BYTES, or past RENDER_BODY_BUDGET_BYTES for the render, is answered
 * empty. A 336 KB zip of a 99 MB text file fetched 24 times at once had taken 11 GB.
 */
export const RENDER_FILE_MAX_BYTES = 16 * 1024 * 1024;
export const RENDER_BODY_BUDGET_BYTES = 64 * 1024 * 1024;

export interface RenderSite {
  /**
   * The live site's address, ending in '/' (domain/site-urls.ts `liveSiteAddress`): the render opens
   * the page there, at the host and under the path a visitor's browser would show.
   */
  address: string;
  entryFile: string | null;
  /** The version's files by path (NFC, '/'-separated). */
  files: ReadonlyMap<string, SiteFile>;
  /**
   * What its `_redirects` and `_headers` and its project's switches declare (services/site-index.ts
   * `routingOf`); null or absent: nothing, as on the live site.
   */
  routing?: SiteRouting | null;
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
  /**
   * Main-frame navigations after the first (meta refresh, location changes, redirects); `byVisitor`:
   * started by the visitor's action (a click, a form it submitted), as Chromium tells it.
   */
  navigations: Array<{ url: string; host: string; external: boolean; byVisitor: boolean }>;
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
  /**
   * Why the page was opened as a phone too (docs/render.md "As a visitor arrives"), or null when the
   * desktop pass showed nothing a phone could be told apart by: the device property a script read,
   * the word naming one in a file the page loaded, or `hidden controls`.
   */
  phoneBecause: string | null;
  /**
   * The page listens for `popstate` and its address is no hash route (`#/…`): a client-side router
   * that changes the path, which needs the project's SPA fallback for deep links and reloads.
   */
  historyRouting: boolean;
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

/** What the render asks of the serving decision: a visitor's GET of the live site. */
const GET = { method: 'GET', preview: false, prefetch: false } as const;
/** Redirects followed within the site before the request is given up (browsers stop at 20). */
const MAX_REDIRECTS = 10;

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
  phoneBecause: null,
  historyRouting: false,
});

/**
 * Whether a page that listens for `popstate` (LISTEN_PROBE tells) routes by the path: neither its
 * address nor a link is a hash route (`#/…`).
 */
const PATH_ROUTES = `(() => {
  if (/^#!?\\//.test(location.hash)) return false;
  return !document.querySelector('a[href^="#/"], a[href^="#!/"]');
})()`;

/**
 * Reports the page's calls of permission APIs through an exposed binding, before any script runs.
 * Each probe keeps its binding to itself and takes it off the page's window, so the page can't
 * call it (a page calling a binding in a loop would hold the render's connection to the browser).
 */
const PERMISSION_PROBE = `(() => {
  const send = (what) => __tell('permission', what);
  const report = (what) => { try { send(what); } catch {} };
  // Where the browser defines each method (a wrapper on \`navigator.geolocation\` itself would be an
  // own property no browser has).
  const wrap = (obj, name, what) =>
    __wrapMethod(obj, name, (orig) => (self, args) => { report(what); return orig.apply(self, args); });
  try { wrap(Geolocation.prototype, 'getCurrentPosition', 'geolocation'); } catch {}
  try { wrap(Geolocation.prototype, 'watchPosition', 'geolocation'); } catch {}
  try { wrap(MediaDevices.prototype, 'getUserMedia', 'camera/microphone'); } catch {}
  try { wrap(Notification, 'requestPermission', 'notifications'); } catch {}
  try { wrap(Clipboard.prototype, 'readText', 'clipboard'); } catch {}
})();`;

/**
 * Reports link hints (dns-prefetch, preconnect, prefetch, prerender, preload) the page has or adds,
 * through a binding: a hint's host is looked up or connected to without a request the route handler
 * sees, so data in its labels would leave unseen. Watched from the document's start, added and
 * changed links alike (one added and removed at once is still reported).
 */
const HINT_PROBE = `(() => {
  const send = (rel, url) => __tell('hint', rel, url);
  const rels = /(?:^|\\s)(dns-prefetch|preconnect|prefetch|prerender|preload|modulepreload)(?:\\s|$)/i;
  const seen = new Set();
  const report = (el) => {
    try {
      if (!el || el.tagName !== 'LINK') return;
      const m = rels.exec(el.getAttribute('rel') || '');
      const href = el.getAttribute('href') || '';
      if (!m || !href) return;
      let url = href;
      try { url = new URL(href, document.baseURI).href; } catch {}
      const key = m[1] + ' ' + url;
      if (seen.has(key) || seen.size > 200) return;
      seen.add(key);
      send(m[1].toLowerCase(), url);
    } catch {}
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'attributes') report(r.target);
      else r.addedNodes.forEach((n) => {
        if (n.nodeType !== 1) return;
        report(n);
        if (n.querySelectorAll) n.querySelectorAll('link').forEach(report);
      });
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['href', 'rel'] });
})();`;

/**
 * The desktop pass's watch for what tells a phone from a desktop (docs/render.md "As a visitor
 * arrives"): the first read of one of these by the page is reported through a binding, and the
 * page is then opened as a phone too. Getters are wrapped where they are defined, so reads by
 * obfuscated code count; `'ontouchstart' in window` can't be watched this way and is found by its
 * word in the page's files instead (DEVICE_WORDS).
 */
const DEVICE_PROBE = `(() => {
  const send = (what) => __tell('device', what);
  let told = false;
  const tell = (what) => { if (told) return; told = true; try { send(what); } catch {} };
  const watch = (obj, props) => {
    for (const p of props) {
      try {
        const d = Object.getOwnPropertyDescriptor(obj, p);
        if (!d || !d.configurable) continue;
        if (d.get) Object.defineProperty(obj, p, { ...d, get: __mask(__getter((self) => { tell(p); return d.get.call(self); }), d.get) });
        else if (typeof d.value === 'function')
          __wrapMethod(obj, p, (orig) => (self, args) => { tell(p); return orig.apply(self, args); });
      } catch {}
    }
  };
  watch(Navigator.prototype, ['userAgent', 'appVersion', 'platform', 'userAgentData', 'maxTouchPoints']);
  watch(Screen.prototype, ['width', 'height', 'availWidth', 'availHeight', 'orientation']);
  watch(window, ['innerWidth', 'innerHeight', 'outerWidth', 'outerHeight', 'devicePixelRatio', 'matchMedia']);
  __wrapMethod(Document.prototype, 'createEvent', (create) => (self, [type]) => {
    if (/touch/i.test(String(type))) tell('createEvent');
    return create.call(self, type);
  });
})();`;

/**
 * Reports, once each, that the page listens for keys on the whole page (window, document, the
 * root or the body: addEventListener or an `on…` property), and that it listens for `popstate` (a
 * client-side router). Only then does the visitor press keys outside any field (visitor.ts), which
 * costs a round trip per key. The wrapper sits where the browser defines the method, and both
 * bindings are taken off the window before any script of the page runs: nothing the page can
 * look up names the render (an outside review's kit hid when it found the router flag it had).
 */
const LISTEN_PROBE = `(() => {
  const sendKeys = () => __tell('keys');
  const sendRouter = () => __tell('router');
  let toldKeys = false;
  let toldRouter = false;
  const keys = new Set(['keydown', 'keypress', 'keyup', 'input']);
  const whole = (t) => t === window || t === document || t === document.documentElement || t === document.body;
  const tellKeys = () => { if (toldKeys) return; toldKeys = true; try { sendKeys(1); } catch {} };
  const tellRouter = () => { if (toldRouter) return; toldRouter = true; try { sendRouter(1); } catch {} };
  __wrapMethod(EventTarget.prototype, 'addEventListener', (add) => (self, args) => {
    const t = String(args[0]);
    if (keys.has(t) && whole(self)) tellKeys();
    if (t === 'popstate' && self === window) tellRouter();
    return add.apply(self, args);
  });
  for (const obj of [window, Document.prototype, HTMLElement.prototype]) {
    for (const p of ['onkeydown', 'onkeypress', 'onkeyup', 'onpopstate']) {
      try {
        const d = Object.getOwnPropertyDescriptor(obj, p);
        if (!d || !d.set || !d.configurable) continue;
        const set = __setter((self, v) => {
          if (p === 'onpopstate') { if (self === window) tellRouter(); }
          else if (whole(self)) tellKeys();
          d.set.call(self, v);
        });
        Object.defineProperty(obj, p, { ...d, set: __mask(set, d.set) });
      } catch {}
    }
  }
})();`;

/**
 * Words in an HTML or script file the page loads that name what tells a phone from a desktop:
 * the page is opened as a phone too. What DEVICE_PROBE can't watch (`'ontouchstart' in window`, a
 * CSS media query on the screen's orientation) is found here.
 */
const DEVICE_WORDS =
  /ontouch|touchstart|TouchEvent|maxTouchPoints|userAgent|matchMedia|devicePixelRatio|innerWidth|outerWidth|orientation|Android|iPhone|Mobile/;
/** Bytes of a served file read for DEVICE_WORDS. */
const DEVICE_SCAN_BYTES = 2 * 1024 * 1024;

/**
 * The controls (fields, lists, buttons) of the page that the desktop visitor could not see: a page
 * that shows its form to phones only (a CSS media query) is opened as a phone too.
 */
const HIDDEN_CONTROLS = `(() => [...document.querySelectorAll('input, textarea, select, button')].filter((el) => {
  if (el.type === 'hidden') return false;
  const r = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  return r.width < 1 || r.height < 1 || style.visibility === 'hidden' || style.display === 'none';
}).length)()`;

/**
 * The page is hidden, then left: the events a visitor's leaving fires, while it still runs. Returns
 * how many requests its handlers started by beacon or fetch, so the render waits for those.
 */
const LEAVE = `(() => {
  let started = 0;
  const count = (obj, name) => {
    const orig = obj && obj[name];
    if (typeof orig !== 'function') return () => {};
    obj[name] = function (...args) { started++; return orig.apply(this, args); };
    return () => { obj[name] = orig; };
  };
  const undo = [count(navigator, 'sendBeacon'), count(window, 'fetch')];
  try {
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    Object.defineProperty(document, 'hidden', { value: true, configurable: true });
  } catch {}
  try { document.dispatchEvent(new Event('visibilitychange')); } catch {}
  try { window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false })); } catch {}
  for (const u of undo) u();
  return started;
})()`;

/** The hosts of the url()s in the document's stylesheets (a CSS side channel asks them). */
const CSS_HOSTS = `(() => {
  const hosts = new Set();
  let budget = 5000;
  const walk = (rules) => {
    for (const r of rules) {
      if (--budget < 0) return;
      if (r.cssRules) walk(r.cssRules);
      const text = r.style ? r.style.cssText : '';
      if (!text.includes('url(')) continue;
      for (const m of text.matchAll(/url\\(\\s*["']?([^"')\\s]+)/g)) {
        try { hosts.add(new URL(m[1], document.baseURI).host); } catch {}
      }
    }
  };
  for (const sheet of document.styleSheets) { try { walk(sheet.cssRules); } catch {} }
  return [...hosts];
})()`;

/** Link hints read per pass at most, and the kinds reported. */
const MAX_HINTS = 200;
const HINT_RELS = new Set([
  'dns-prefetch',
  'preconnect',
  'prefetch',
  'prerender',
  'preload',
  'modulepreload',
]);

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

function hostnameOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

/**
 * How long after the visitor pressed the main button or submitted a form a navigation counts as its
 * doing: the request comes within milliseconds; the rest is room for a loaded machine's events.
 */
const PRESS_WINDOW_MS = 2_000;

function push<T>(list: T[], item: T) {
  if (list.length < KEEP) list.push(item);
}

async function bodyOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Resolves to 'late' when `p` has not settled within `ms` (p's outcome is then ignored). */
/**
 * How long the browser may take to open a context or a page, or to take a script or a route:
 * longer, and it is taken as gone.
 */
const OPEN_TIMEOUT_MS = 10_000;

/** The browser did not answer a step of opening the page (OPEN_TIMEOUT_MS). */
export class BrowserUnresponsive extends Error {}

async function opened<T>(p: Promise<T>, what: string): Promise<T> {
  const result = await within(p, OPEN_TIMEOUT_MS);
  if (result === 'late') throw new BrowserUnresponsive(`browser did not answer ${what} in time`);
  return result;
}

function within<T>(p: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((r) => {
    timer = setTimeout(() => r('late'), Math.max(0, ms));
  });
  p.catch(() => {});
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * Renders the site's entry page, as a desktop visitor (the picture) and then, when the page can
 * tell a phone from a desktop (`phoneBecause`), as a phone visitor;
 * throws RenderTimeout when the page could not be pictured within the limits. A page whose `load`
 * never comes is pictured at the deadline, with `loadTimedOut` set.
 */
export async function renderPage(
  browser: Browser,
  site: RenderSite,
  opts: {
    allowPublicAssets: boolean;
    loadTimeoutMs?: number;
    /** The values the visitor types; drawn for this render when not given (a test's page may embed them). */
    canaries?: CanaryValues;
  },
): Promise<RenderResult> {
  const obs = emptyObservations();
  obs.loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const run: Run = {
    browser,
    site,
    opts,
    obs,
    chrome: majorOf(browser.version()),
    bodies: new Map(),
    budgetLeft: RENDER_BODY_BUDGET_BYTES,
    canaries: new Canaries(opts.canaries),
  };
  const screenshot = await renderPass(run, DESKTOP, true);
  // A page that stalled its load has shown what it does; a second wait would only double the cost.
  // A page that showed nothing a phone could be told apart by would show a phone the same face.
  if (!obs.loadTimedOut && screenshot && obs.phoneBecause)
    await renderPass(run, PHONE, false).catch(() => {});
  if (!screenshot) throw new RenderTimeout('screenshot timeout', obs);
  return { screenshot, observations: obs };
}

interface Run {
  browser: Browser;
  site: RenderSite;
  opts: { allowPublicAssets: boolean; loadTimeoutMs?: number };
  obs: Observations;
  chrome: string;
  /** The site's files read so far in this render, by SHA-256 (a read in flight is its promise). */
  bodies: Map<string, Promise<Buffer>>;
  /** Bytes the render may still read into memory (RENDER_BODY_BUDGET_BYTES). */
  budgetLeft: number;
  /** What the visitor types in both passes, and where it is looked for. */
  canaries: Canaries;
}

const EMPTY = Buffer.alloc(0);

/**
 * A file's body for the render: read once, then shared by every request of it; empty when over
 * the file limit or the render's budget (reserved before the read, so parallel requests can't pass it).
 */
function renderBodyOf(run: Run, file: SiteFile): Promise<Buffer> {
  const known = run.bodies.get(file.sha256);
  if (known) return known;
  if (file.size > RENDER_FILE_MAX_BYTES || file.size > run.budgetLeft) return Promise.resolve(EMPTY);
  run.budgetLeft -= file.size;
  const body = run.site.read(file).then(bodyOf);
  run.bodies.set(file.sha256, body);
  // A failed read is not kept: the next request tries again (and the budget is given back).
  body.catch(() => {
    run.bodies.delete(file.sha256);
    run.budgetLeft += file.size;
  });
  return body;
}

/** One pass: opens the page with a profile, pictures it (when asked), lets the visitor in. */
async function renderPass(run: Run, profile: RenderProfile, picture: boolean): Promise<Buffer | null> {
  const { browser, site, opts, obs } = run;
  const loadTimeoutMs = opts.loadTimeoutMs ?? LOAD_TIMEOUT_MS;
  const address = new URL(site.address);
  const ownHost = address.host;
  // The path the site lives under ('/' on its own host, '/sites/{name}/' on a shared one).
  const prefix = address.pathname.endsWith('/') ? address.pathname : `${address.pathname}/`;
  const { canaries } = run;
  const served = { files: site.files, entryFile: site.entryFile, routing: site.routing ?? null };
  // What visitors get on the sites port: the live site's headers, without the preview's sandbox;
  // the fake origin and the route handler are the isolation.
  const headers = siteSecurityHeaders('separate-origin');
  const keys = new Map<string, { pieces: string; url: string; via: string }>();
  // Requests the route handler has been given, and those it is still answering.
  let routed = 0;
  let inFlight = 0;
  const fragments: Array<{ kind: CanaryKind; host: string; url: string; via: string }> = [];
  let listensForKeys = false;
  let listensForPopstate = false;
  /** When the visitor last pressed the main button or submitted a form (visitor.ts), in ms. */
  let pressedAt = Number.NEGATIVE_INFINITY;
  const justPressed = () => Date.now() - pressedAt <= PRESS_WINDOW_MS;
  /** Documents asked just after the visitor pressed, by a user gesture as Chromium says. */
  const gestured = new Set<string>();
  /** Navigations first seen just after the visitor pressed (one seen before stays the page's own). */
  const seenAfterPress = new Set<string>();
  const fields = new Map<CanaryKind, string>();
  obs.profiles.push(profile.name);
  const context = await opened(browser.newContext(profile.context(run.chrome)), 'newContext');
  const pass = new PassScript();
  let hung = false;
  try {
    // What the probes tell comes by the page's console, under a mark drawn for the pass
    // (stealth.ts): Playwright's bindings would leave globals of their own in every page.
    let hints = 0;
    const tells: Record<string, (...args: unknown[]) => void> = {
      permission: (what) => {
        if (typeof what === 'string' && !obs.permissions.includes(what)) push(obs.permissions, what);
      },
      // What the probes send is bounded all the same.
      hint: (rel, url) => {
        if (typeof rel !== 'string' || typeof url !== 'string' || ++hints > MAX_HINTS) return;
        if (HINT_RELS.has(rel)) look(url.slice(0, 2000), '', rel);
      },
      keys: () => {
        listensForKeys = true;
      },
      router: () => {
        listensForPopstate = true;
      },
      // WebSockets (stealth.ts): each one is recorded, and what the page sends on it is read.
      'ws-open': (url) => {
        if (typeof url === 'string')
          record({ method: 'WEBSOCKET', url, resourceType: 'websocket', allowed: false });
      },
      'ws-send': (url, text) => {
        if (typeof url === 'string' && typeof text === 'string') look(url.slice(0, 2000), text, 'websocket');
      },
      device: (what) => {
        if (profile.name === 'desktop' && typeof what === 'string') phone(`script:${what}`);
      },
    };
    context.on('console', (message) => {
      const said = pass.told(message.type(), message.text());
      if (said) tells[said.what]?.(...said.args);
    });
    // A browser killed meanwhile (its memory: render/memory-watchdog.ts) can leave these waiting
    // for good (newPage did, in render-bounds.test.ts): past the bound the browser is replaced.
    const open = <T>(p: Promise<T>, what: string) =>
      opened(p, what).catch((err: unknown) => {
        hung = true;
        throw err;
      });
    // One script before any of the page's, its wrappers reading as the browser's own (stealth.ts).
    await open(
      context.addInitScript(
        pass.script([
          visitorScript(profile),
          PERMISSION_PROBE,
          HINT_PROBE,
          LISTEN_PROBE,
          ...(profile.name === 'desktop' ? [DEVICE_PROBE] : []),
        ]),
      ),
      'addInitScript',
    );
    await open(
      context.route('**/*', (route) => {
        routed++;
        inFlight++;
        return answer(route, route.request()).finally(() => {
          inFlight--;
        });
      }),
      'route',
    );
    const page = await open(context.newPage(), 'newPage');
    watch(page);
    await watchGestures(page);

    const started = Date.now();
    try {
      await page.goto(`${address.origin}${prefix}`, { waitUntil: 'load', timeout: loadTimeoutMs });
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
    if (profile.name === 'desktop' && !page.isClosed()) {
      if (listensForPopstate) {
        const byPath = await within(page.evaluate(PATH_ROUTES), 1_000).catch(() => false);
        if (byPath === true) obs.historyRouting = true;
      }
    }
    const visited = within(
      visit(page, {
        deadline: Date.now() + VISIT_TIMEOUT_MS,
        passTime: (ms) => pass.jump(page, ms),
        canaries: canaries.values,
        fields,
        listensForKeys: () => listensForKeys,
        pressing: () => {
          pressedAt = Date.now();
        },
      }),
      VISIT_TIMEOUT_MS + 2_000,
    );
    if ((await visited) === 'late') hung = true;
    sendKeys();
    if (!hung && !page.isClosed()) {
      const frames = sameOriginFrames(page);
      const css = new Set<string>();
      for (const frame of frames)
        for (const h of ((await within(frame.evaluate(CSS_HOSTS), 1_000).catch(() => [])) as string[]) ?? [])
          if (typeof h === 'string') css.add(h);
      // A request to a host the stylesheets ask (an image or font): a CSS side channel.
      for (const l of obs.leaks)
        if (l.profile === profile.name && css.has(l.host) && ['image', 'font', 'other'].includes(l.via))
          l.via = 'css';
      // Hidden controls in the page or any frame of its own origin (a form a media query shows
      // only on a phone can sit in a frame: an outside review hid a login form so).
      for (const frame of frames) {
        if (profile.name !== 'desktop' || obs.phoneBecause) break;
        const hidden = await within(frame.evaluate(HIDDEN_CONTROLS), 1_000).catch(() => 0);
        if (typeof hidden === 'number' && hidden > 0) phone('hidden controls');
      }
      // The visitor leaves: what the page sends on visibilitychange or pagehide (a beacon of what
      // was typed, when no one watches) is sent while the page still runs, so the handler sees it.
      // (A real navigation away sends it after the page is gone, past the route handler.)
      const before = routed;
      let sent = 0;
      for (const frame of frames) {
        const n = await within(
          frame.evaluate(LEAVE).catch(() => 0),
          1_000,
        );
        if (typeof n === 'number') sent += n;
      }
      // What the page sent reaches the handler a moment later: wait for that many, 2 s at most.
      const until = Date.now() + 2_000;
      while (sent > 0 && routed - before < sent && Date.now() < until)
        await new Promise((r) => setTimeout(r, 20));
      while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    }
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

  /** Looks for the canaries in what one request carried (its host's labels included). */
  function look(url: string, body: string, via: string): void {
    const host = hostOf(url);
    for (const hit of canaries.find(`${url}\n${body}`)) leak(hit.kind, hit.encoding, host, url, via);
    if (host !== ownHost)
      for (const hit of canaries.inHost(hostnameOf(url))) leak(hit.kind, hit.encoding, host, url, via);
    // A logger that sends its buffer before a value is whole: a piece of it, kept until the end.
    for (const hit of canaries.fragments(`${url}\n${body}`))
      if (!fragments.some((f) => f.kind === hit.kind && f.host === host))
        fragments.push({ kind: hit.kind, host, url, via });
    // A logger that sends one key per request, or its buffer in batches: the short values,
    // joined host by host.
    const pieces = keyPieces(url, body);
    if (pieces.length > 0) {
      const k = keys.get(host) ?? { pieces: '', url, via };
      k.pieces += pieces.join('');
      if (k.pieces.length < 4096) keys.set(host, k);
    }
  }

  /** What was sent in pieces, unless the same host got the whole value in one request. */
  function phone(because: string): void {
    if (!obs.phoneBecause) obs.phoneBecause = because;
  }

  function sendKeys(): void {
    for (const [host, k] of keys)
      for (const hit of canaries.typed(k.pieces)) leak(hit.kind, 'keys', host, k.url, k.via);
    for (const f of fragments) leak(f.kind, 'fragment', f.host, f.url, f.via);
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
      const url = req.url();
      const host = hostOf(url);
      if (obs.navigations.some((n) => n.url === url)) return;
      const pressed = justPressed();
      if (pressed) seenAfterPress.add(url);
      push(obs.navigations, {
        url,
        host,
        external: host !== ownHost,
        byVisitor: pressed && gestured.has(url),
      });
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

  /**
   * Learns which navigations the visitor started: those asked just after it pressed the main button
   * or submitted a form that Chromium marks as made with a user gesture, which Playwright's request
   * does not expose. Just after a press only: Chromium marks a navigation a page makes while it
   * loads too, and typing gives the page a gesture as well (a page that leaves as a key is typed
   * leaves on its own). The two events come in either order, so both look.
   */
  async function watchGestures(page: Page): Promise<void> {
    const cdp = await page.context().newCDPSession(page);
    cdp.on(
      'Network.requestWillBeSent',
      (e: { type?: string; hasUserGesture?: boolean; request: { url: string } }) => {
        if (e.type !== 'Document' || !e.hasUserGesture || !justPressed() || gestured.size >= KEEP) return;
        const { url } = e.request;
        gestured.add(url);
        if (seenAfterPress.has(url)) for (const n of obs.navigations) if (n.url === url) n.byVisitor = true;
      },
    );
    await cdp.send('Network.enable');
  }

  async function answer(route: Route, req: Request): Promise<void> {
    try {
      const url = new URL(req.url());
      // Canaries in the URL or body of any request, the site's own included (information there).
      const body = req.postDataBuffer();
      look(req.url(), body ? body.toString('utf8') : '', req.resourceType());
      if (url.host === ownHost && url.protocol === address.protocol) return await answerOwn(route, req, url);
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

  /**
   * The one decision every serving path makes (serve/site-request.ts): the site's redirects,
   * rewrites, clean URLs, SPA fallback and headers, as a visitor of the live site meets them. On a
   * host the site shares (its address has a path), what lies outside its path is what the sites
   * host answers there: the site's path without its slash redirected to it, a root-absolute request
   * of its pages sent under its path (serve/root-rescue.ts), nothing else.
   */
  function decideAt(url: URL, referer: string | undefined): SiteDecision {
    if (url.pathname.startsWith(prefix))
      return decideSiteRequest(served, url.pathname.slice(prefix.length) + url.search, GET);
    if (`${url.pathname}/` === prefix)
      return { kind: 'redirect', status: 301, location: `${prefix}${url.search}` };
    const rescue = rootRescueLocation(url.pathname + url.search, { host: ownHost, referer }, 'GET');
    return rescue ? { kind: 'redirect', status: 307, location: rescue } : { kind: 'not-found' };
  }

  async function answerOwn(route: Route, req: Request, first: URL): Promise<void> {
    // The Referer costs a round trip to the browser: asked only for a request outside the site's
    // path (the root rescue reads it), which a site on a host of its own never makes.
    let asked: Promise<string | undefined> | undefined;
    const refererFor = (u: URL): Promise<string | undefined> | undefined => {
      if (u.pathname.startsWith(prefix)) return undefined;
      asked ??= req
        .allHeaders()
        .catch(() => req.headers())
        .then((h) => h.referer);
      return asked;
    };
    let url = first;
    let decision = decideAt(url, await refererFor(url));
    // A redirect is followed here: Chromium follows a fulfilled redirect on its own network (the
    // dead proxy), never back through this handler. Within the site, the answer is the target's
    // (as the visitor's browser would fetch it); to another host, the request is recorded there.
    for (let hop = 0; decision.kind === 'redirect'; hop++) {
      const next = new URL(decision.location, url);
      if (next.host !== ownHost || next.protocol !== address.protocol || hop === MAX_REDIRECTS) {
        // What the visitor's browser would send there: the target's address, and the body again
        // on a 307 or 308. A form posted to the site's own path that its `_redirects` sends to
        // another host gives that host what was typed (an outside review's kit was rated low so).
        if (next.host !== ownHost) {
          const resend = decision.status === 307 || decision.status === 308;
          const body = resend ? (req.postDataBuffer()?.toString('utf8') ?? '') : '';
          look(next.href, body, req.resourceType());
        }
        record({
          method: 'GET',
          url: next.href,
          resourceType: route.request().resourceType(),
          allowed: false,
        });
        await route.abort('blockedbyclient');
        return;
      }
      url = next;
      decision = decideAt(url, await refererFor(url));
    }
    if (decision.kind !== 'file' || decision.status === 404) {
      // Named by the site's own path (a request outside it, on a shared host, by the host's).
      const sitePath = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
      let path: string;
      try {
        path = decodeURIComponent(sitePath).normalize('NFC').replace(/^\/+/, '');
      } catch {
        path = sitePath.replace(/^\/+/, '');
      }
      if (!obs.missing.includes(`/${path}`)) push(obs.missing, `/${path}`);
    }
    if (decision.kind !== 'file') {
      await route.fulfill({ status: 404, headers, contentType: 'text/plain; charset=utf-8', body: '404' });
      return;
    }
    const resolved = decision;
    const body = await renderBodyOf(run, resolved.file);
    if (profile.name === 'desktop' && !obs.phoneBecause && /html|javascript/.test(resolved.file.mime_type)) {
      const word = DEVICE_WORDS.exec(body.subarray(0, DEVICE_SCAN_BYTES).toString('latin1'));
      if (word) phone(`text:${word[0]}`);
    }
    await route.fulfill({
      status: resolved.status,
      // The site's own headers under the platform's, which win (serve/site-rules.ts).
      headers: { 'content-type': resolved.file.mime_type, ...withSiteHeaders(headers, resolved.headers) },
      body,
    });
  }
}
