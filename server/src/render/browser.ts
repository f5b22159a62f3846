/**
 * The render worker's Chromium (docs/render.md): Debian's binary (CHROMIUM_PATH), launched on
 * first use with bounded memory and no network of its own, restarted after a number of pages or
 * when it crashed or a render failed (a hung renderer is not reused).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import type { Browser } from 'playwright-core';

const LAUNCH_TIMEOUT_MS = 20_000;
const CLOSE_TIMEOUT_MS = 3_000;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--no-first-run',
  '--no-default-browser-check',
  '--mute-audio',
  // Memory: one renderer process with a bounded JavaScript heap; the GPU and network services in
  // the browser process rather than processes of their own, and none of the browser's own
  // features a render never uses.
  '--renderer-process-limit=1',
  '--js-flags=--max-old-space-size=192',
  '--in-process-gpu',
  '--enable-features=NetworkServiceInProcess',
  '--disable-features=Translate,MediaRouter,OptimizationHints,BackForwardCache,AutofillServerCommunication',
  // Nothing the browser does on its own resolves or reaches a host: every request the page makes
  // is answered by the render's route handler before this would apply.
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

/** Whether the configured Chromium exists and can be run; the reason when not. */
export function chromiumMissing(path: string): string | null {
  try {
    fs.accessSync(path, fs.constants.X_OK);
    return null;
  } catch {
    return `Chromium not found or not executable at ${path} (CHROMIUM_PATH)`;
  }
}

export class RenderBrowser {
  #browser: Browser | null = null;
  #launching: Promise<Browser> | null = null;
  #pages = 0;
  /** Playwright's zone storage, once playwright is loaded and it was found (see idle()). */
  #zones: AsyncLocalStorage<unknown> | null = null;

  constructor(
    private readonly executablePath: string,
    private readonly opts: { pagesBeforeRestart: () => number },
  ) {}

  /** The running browser, launched (again) when there is none or it has served its pages. */
  async get(): Promise<Browser> {
    if (this.#browser?.isConnected() && this.#pages < this.opts.pagesBeforeRestart()) {
      this.#pages++;
      return this.#browser;
    }
    if (this.#browser) await this.close();
    // playwright-core is loaded with the first launch, not at start: ~275 ms and ~90 MB of a
    // server whose render worker is off or has nothing to render yet.
    this.#launching ??= import('playwright-core')
      .then(async ({ chromium }) => {
        this.#zones ??= await playwrightZones();
        return chromium;
      })
      .then((chromium) =>
        chromium.launch({
          executablePath: this.executablePath,
          args: CHROMIUM_ARGS,
          timeout: LAUNCH_TIMEOUT_MS,
          handleSIGINT: false,
          handleSIGTERM: false,
          handleSIGHUP: false,
        }),
      )
      .finally(() => {
        this.#launching = null;
      });
    const browser = await this.#launching;
    browser.on('disconnected', () => {
      if (this.#browser === browser) this.#browser = null;
    });
    this.#browser = browser;
    this.#pages = 1;
    return browser;
  }

  /**
   * Says no render is running: the async context playwright's client turned on for its calls is
   * turned off again (docs/decisions/serving.md "No async hooks between renders"). Every call
   * through playwright turns it back on.
   */
  idle(): void {
    this.#zones?.disable();
  }

  /** Closes the browser; one that does not close in time is left to its disconnection. */
  async close(): Promise<void> {
    const browser = this.#browser;
    this.#browser = null;
    if (!browser) return;
    await Promise.race([
      browser.close().catch(() => {}),
      new Promise((r) => setTimeout(r, CLOSE_TIMEOUT_MS).unref()),
    ]);
  }
}

/**
 * The AsyncLocalStorage playwright's client runs each API call in (its "zones"), or null when this
 * version of playwright-core keeps it elsewhere. Once one has run, Node 20 keeps an async hook on
 * in the whole process (every promise, timer and socket write pays for it: a small site file's
 * answer costs about a quarter more), until the storage is disabled. Not a public API of
 * playwright's: looked up defensively, and server/test/render.test.ts checks it is found.
 */
async function playwrightZones(): Promise<AsyncLocalStorage<unknown> | null> {
  // A variable specifier: the bundle has no types, and is the module playwright-core loads.
  const bundle = 'playwright-core/lib/coreBundle';
  try {
    const m = (await import(bundle)) as { utils?: { emptyZone?: { _asyncLocalStorage?: unknown } } };
    const storage = m.utils?.emptyZone?._asyncLocalStorage;
    return storage instanceof AsyncLocalStorage ? storage : null;
  } catch {
    return null;
  }
}
