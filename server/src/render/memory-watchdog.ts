/**
 * Bounds the render's memory (docs/render.md "Memory"): `--max-old-space-size` bounds only the
 * JavaScript heap, not typed arrays or a canvas, which took Chromium to gigabytes. While a render
 * runs, the renderer processes' resident memory is sampled from /proc (their ids from CDP's
 * SystemInfo.getProcessInfo) every 100 ms, and a renderer past the limit is killed at once: its
 * page crashes, and the render service (services/render.ts) makes that a finding of its own rather
 * than a failure to retry. Each browser context has renderers of its own, so a kill ends only the
 * page that grew. The browser's main process is sampled too, against a limit of its own: one past
 * it is killed, which ends the whole browser (its renderers exit with it); the render browser
 * (render/browser.ts) launches a new one for the next render, as after a crash, and the renders it
 * ran are tried again. Without /proc (not Linux) nothing is sampled and nothing is killed.
 */
import fs from 'node:fs';
import type { Browser, CDPSession } from 'playwright-core';

/** Resident memory one renderer may reach: a page the showcase shows needs a fraction of it. */
export const RENDERER_MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;
/**
 * Resident memory the browser's main process may reach (the GPU and network services run in it):
 * 180-290 MB measured while rendering, large canvases included (docs/render.md "Memory").
 */
export const BROWSER_MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;
const SAMPLE_MS = 100;

/** A process this watchdog killed: which (a renderer, or the browser's main process), when, how large. */
export interface MemoryKill {
  process: 'renderer' | 'browser';
  at: number;
  pid: number;
  rssBytes: number;
}

/** Resident bytes of a process, or null when it is gone or /proc can't tell. */
function residentBytes(pid: number): number | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : null;
  } catch {
    return null;
  }
}

interface Watched {
  users: number;
  cdp: Promise<CDPSession | null>;
  timer: NodeJS.Timeout;
  sampling: boolean;
  kills: MemoryKill[];
}

export interface MemoryWatch {
  /** The first process this watchdog killed since the watch began, if any. */
  killed(): MemoryKill | null;
  stop(): void;
}

export class RenderMemoryWatchdog {
  readonly #watched = new Map<Browser, Watched>();

  constructor(
    private readonly opts: { limitBytes?: number; browserLimitBytes?: number; sampleMs?: number } = {},
  ) {}

  get limitBytes(): number {
    return this.opts.limitBytes ?? RENDERER_MEMORY_LIMIT_BYTES;
  }

  get browserLimitBytes(): number {
    return this.opts.browserLimitBytes ?? BROWSER_MEMORY_LIMIT_BYTES;
  }

  /** Watches the browser and its renderers until stop() (renders of one browser share one sampler). */
  watch(browser: Browser): MemoryWatch {
    const since = Date.now();
    let w = this.#watched.get(browser);
    if (!w) {
      const created: Watched = {
        users: 0,
        cdp: browser.newBrowserCDPSession().catch(() => null),
        timer: setInterval(() => void this.#sample(created), this.opts.sampleMs ?? SAMPLE_MS),
        sampling: false,
        kills: [],
      };
      created.timer.unref();
      w = created;
      this.#watched.set(browser, w);
    }
    const watched = w;
    watched.users++;
    let stopped = false;
    return {
      killed: () => watched.kills.find((k) => k.at >= since) ?? null,
      stop: () => {
        if (stopped) return;
        stopped = true;
        if (--watched.users > 0) return;
        clearInterval(watched.timer);
        this.#watched.delete(browser);
        void watched.cdp.then((s) => s?.detach()).catch(() => {});
      },
    };
  }

  async #sample(w: Watched): Promise<void> {
    if (w.sampling) return;
    w.sampling = true;
    try {
      const cdp = await w.cdp;
      if (!cdp) return;
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: Array<{ type: string; id: number }>;
      };
      for (const p of processInfo) {
        const limit =
          p.type === 'renderer' ? this.limitBytes : p.type === 'browser' ? this.browserLimitBytes : null;
        if (limit === null) continue;
        const rss = residentBytes(p.id);
        if (rss === null || rss <= limit) continue;
        try {
          process.kill(p.id, 'SIGKILL');
          w.kills.push({
            process: p.type as MemoryKill['process'],
            at: Date.now(),
            pid: p.id,
            rssBytes: rss,
          });
        } catch {
          // Gone already.
        }
      }
    } catch {
      // The browser closed or crashed meanwhile: its render fails on its own.
    } finally {
      w.sampling = false;
    }
  }
}
