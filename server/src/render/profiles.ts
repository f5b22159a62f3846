/**
 * Who the render looks like to the page (docs/render.md "As a visitor arrives"): a person in China
 * on a desktop, then on a phone, with none of the marks a page commonly checks to tell a headless
 * browser from a visitor and show it a harmless face (navigator.webdriver, a HeadlessChrome user
 * agent, one language, no plugins, a Notification permission that disagrees with the Permissions API).
 */
import type { BrowserContextOptions } from 'playwright-core';

export type ProfileName = 'desktop' | 'phone';

export interface RenderProfile {
  name: ProfileName;
  context: (chromeMajor: string) => BrowserContextOptions;
  /** navigator.platform as that device's Chrome reports it. */
  platform: string;
}

const COMMON: BrowserContextOptions = {
  locale: 'zh-CN',
  timezoneId: 'Asia/Shanghai',
  acceptDownloads: false,
  serviceWorkers: 'block',
  permissions: [],
  extraHTTPHeaders: { 'accept-language': 'zh-CN,zh;q=0.9' },
};

export const DESKTOP: RenderProfile = {
  name: 'desktop',
  platform: 'Win32',
  context: (v) => ({
    ...COMMON,
    viewport: { width: 1280, height: 800 },
    // A window on a larger screen, as on a visitor's desktop (headless Chromium's screen is its window).
    screen: { width: 1920, height: 1080 },
    userAgent: `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Safari/537.36`,
  }),
};

export const PHONE: RenderProfile = {
  name: 'phone',
  platform: 'Linux armv81',
  context: (v) => ({
    ...COMMON,
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    userAgent: `Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${v}.0.0.0 Mobile Safari/537.36`,
  }),
};

/**
 * Runs before any script of the page (a part of stealth.ts `pageScript`): the properties a cloaking
 * page reads, as a visitor's browser has them, through getters and methods that read as the
 * browser's own.
 */
export const visitorScript = (profile: RenderProfile) => `(() => {
  const def = (obj, prop, value) => {
    try {
      const d = Object.getOwnPropertyDescriptor(obj, prop);
      const get = __getter(() => value);
      Object.defineProperty(obj, prop, { get: d && d.get ? __mask(get, d.get) : get, set: d ? d.set : undefined,
        enumerable: d ? d.enumerable : true, configurable: true });
    } catch {}
  };
  def(Navigator.prototype, 'webdriver', false);
  def(Navigator.prototype, 'languages', Object.freeze(['zh-CN', 'zh']));
  def(Navigator.prototype, 'platform', ${JSON.stringify(profile.platform)});
  def(Navigator.prototype, 'hardwareConcurrency', 8);
  ${
    profile.name === 'desktop'
      ? `// The window's frame and toolbars: headless Chromium's window is only its page.
  const inner = (p) => Object.getOwnPropertyDescriptor(window, p).get;
  const iw = inner('innerWidth'), ih = inner('innerHeight');
  for (const [p, extra, get] of [['outerWidth', 16, iw], ['outerHeight', 87, ih]]) {
    try {
      const d = Object.getOwnPropertyDescriptor(window, p);
      Object.defineProperty(window, p, { ...d, get: __mask(__getter(() => get.call(window) + extra), d.get) });
    } catch {}
  }`
      : ''
  }
  try { if (!window.chrome) window.chrome = {}; if (!window.chrome.runtime) window.chrome.runtime = {}; } catch {}
  try {
    __wrapMethod(Permissions.prototype, 'query', (query) => (self, [desc]) => {
      if (desc && desc.name === 'notifications') return Promise.resolve({ state: 'prompt', onchange: null });
      return query.call(self, desc);
    });
    def(Notification, 'permission', 'default');
  } catch {}
})();`;

/** Chromium's major version, for a user agent that matches the engine the page runs in. */
export const majorOf = (version: string) => /^(\d+)/.exec(version)?.[1] ?? '130';
