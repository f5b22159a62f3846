/**
 * What keeps the render's own scripts out of the page's sight (docs/render.md "What the page can
 * see of the render"). Every probe, the fake clock and the WebSocket stand-in run as one script
 * before any of the page's:
 *
 * - each method or getter they replace reads as the browser's own: `Function.prototype.toString`
 *   gives the original's text (`function addEventListener() { [native code] }`), the name and
 *   length are the original's, and no wrapper has a `prototype` (methods are made as methods);
 * - the fake clock is the render's own, not Playwright's: Playwright's left `window.__pwClock` and
 *   timers whose text is their source, so one line of a kit (`if (window.__pwClock) return`)
 *   sent nothing to the render. Here the timers are the browser's, given a time base the visitor
 *   moves forward (`PassScript.jump`), and `Date`, `Date.now` and `performance.now` read that base;
 * - the probes tell the render through the console, under a mark drawn for the pass, not through
 *   Playwright's bindings (which leave globals of their own).
 *
 * The helpers live in the script's closure and leave no global.
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';

/**
 * The script's prelude: `__mask(wrapper, original)` makes a wrapper read as the original;
 * `__method(impl)` makes a method (no `prototype`) that calls `impl(this, args)`.
 */
const MASK = `
  const __nativeOf = new WeakMap();
  const __toString = Function.prototype.toString;
  const __masked = ({ toString() {
    const original = __nativeOf.get(this);
    return __toString.call(original === undefined ? this : original);
  } }).toString;
  __nativeOf.set(__masked, __toString);
  try {
    const d = Object.getOwnPropertyDescriptor(Function.prototype, 'toString');
    Object.defineProperty(Function.prototype, 'toString', { ...d, value: __masked });
  } catch {}
  const __mask = (wrapper, original) => {
    if (typeof original !== 'function') return wrapper;
    // A wrapper of a wrapper reads as the browser's own too.
    __nativeOf.set(wrapper, __nativeOf.get(original) || original);
    try { Object.defineProperty(wrapper, 'name', { value: original.name, configurable: true }); } catch {}
    try { Object.defineProperty(wrapper, 'length', { value: original.length, configurable: true }); } catch {}
    return wrapper;
  };
  const __method = (impl) => ({ m(...args) { return impl(this, args); } }).m;
  const __getter = (impl) => Object.getOwnPropertyDescriptor({ get g() { return impl(this); } }, 'g').get;
  const __setter = (impl) => Object.getOwnPropertyDescriptor({ set s(v) { impl(this, v); } }, 's').set;
  /** Replaces a method where the browser defines it, with a wrapper that reads as the original. */
  const __wrapMethod = (obj, name, make) => {
    try {
      const d = Object.getOwnPropertyDescriptor(obj, name);
      if (!d || typeof d.value !== 'function') return;
      const original = d.value;
      Object.defineProperty(obj, name, { ...d, value: __mask(__method(make(original)), original) });
    } catch {}
  };
`;

/**
 * The render's fake clock, in every frame: the browser's own timers on a time base that runs with
 * real time and jumps when the visitor passes time. A jump fires every timer it passes (an
 * interval once) and brings the others nearer by as much, as Playwright's `fastForward` did.
 */
const clockScript = (event: string) => `
  (() => {
    const native = { setTimeout, clearTimeout, setInterval, clearInterval };
    const NativeDate = Date;
    const nativeNow = Date.now;
    const perfNow = Performance.prototype.now;
    let offset = 0;
    const now = () => nativeNow.call(NativeDate) + offset;
    // Timers by the id the page was given; each holds the native id of its current wait.
    const timers = new Map();
    const run = (fn, args) => {
      if (typeof fn === 'function') fn.apply(window, args);
      else (0, eval)(String(fn));
    };
    const arm = (id, t) => {
      t.native = native.setTimeout.call(window, () => {
        if (!timers.has(id)) return;
        if (t.every === null) timers.delete(id);
        else { t.due = now() + t.every; arm(id, t); }
        run(t.fn, t.args);
      }, Math.max(0, t.due - now()));
    };
    let lastId = 0;
    const start = (fn, delay, args, repeat) => {
      const ms = Math.max(0, Number(delay) || 0);
      const id = ++lastId;
      const t = { fn, args, due: now() + ms, every: repeat ? ms : null, native: 0 };
      timers.set(id, t);
      arm(id, t);
      return id;
    };
    const stop = (id) => {
      const t = timers.get(id);
      if (!t) return false;
      native.clearTimeout.call(window, t.native);
      timers.delete(id);
      return true;
    };
    window.setTimeout = __mask(__method((_, [fn, delay, ...args]) => start(fn, delay, args, false)), native.setTimeout);
    window.setInterval = __mask(__method((_, [fn, delay, ...args]) => start(fn, delay, args, true)), native.setInterval);
    window.clearTimeout = __mask(__method((_, [id]) => { if (!stop(id)) native.clearTimeout.call(window, id); }), native.clearTimeout);
    window.clearInterval = __mask(__method((_, [id]) => { if (!stop(id)) native.clearInterval.call(window, id); }), native.clearInterval);
    const FakeDate = new Proxy(NativeDate, {
      construct: (target, args, newTarget) =>
        Reflect.construct(target, args.length ? args : [now()], newTarget === FakeDate ? target : newTarget),
      apply: () => new NativeDate(now()).toString(),
    });
    __mask(FakeDate, NativeDate);
    try { Object.defineProperty(NativeDate.prototype, 'constructor', { value: FakeDate, writable: true, configurable: true }); } catch {}
    try {
      const d = Object.getOwnPropertyDescriptor(NativeDate, 'now');
      Object.defineProperty(NativeDate, 'now', { ...d, value: __mask(__method(() => now()), nativeNow) });
    } catch {}
    window.Date = FakeDate;
    __wrapMethod(Performance.prototype, 'now', () => (self) => perfNow.call(self) + offset);
    // The visitor's jump: every wait is armed again against the moved base (due ones at once, in
    // the order they were due).
    const nativeAdd = EventTarget.prototype.addEventListener;
    nativeAdd.call(window, ${JSON.stringify(event)}, (e) => {
      const ms = Number(e.detail);
      if (!(ms > 0)) return;
      offset += ms;
      [...timers].sort((a, b) => a[1].due - b[1].due).forEach(([id, t]) => {
        native.clearTimeout.call(window, t.native);
        arm(id, t);
      });
      e.stopImmediatePropagation();
    }, true);
  })();
`;

/**
 * WebSockets, as a visitor's browser has them to the page, with no server behind them: each
 * socket opens, what the page sends on it is told to the render (\`ws-open\`, \`ws-send\`), and
 * nothing answers. The route handler never sees a WebSocket; Playwright's own socket stand-in
 * was a class whose text was its source, with two globals of its own.
 */
const WEBSOCKET = `
  (() => {
    const Native = window.WebSocket;
    if (typeof Native !== 'function') return;
    const wait = setTimeout;
    const state = new WeakMap();
    const fire = (ws, type, init) => {
      const s = state.get(ws);
      const event = type === 'close' ? new CloseEvent('close', init) : new Event(type);
      ws.dispatchEvent(event);
      const handler = s.handlers['on' + type];
      if (typeof handler === 'function') { try { handler.call(ws, event); } catch (e) { wait(() => { throw e; }); } }
    };
    const WebSocket = class extends EventTarget {
      constructor(url, protocols) {
        super();
        let href;
        try {
          const u = new URL(String(url), location.href);
          if (u.protocol === 'http:') u.protocol = 'ws:';
          if (u.protocol === 'https:') u.protocol = 'wss:';
          if (u.protocol !== 'ws:' && u.protocol !== 'wss:' || u.hash) throw new Error();
          href = u.href;
        } catch {
          throw new DOMException("Failed to construct 'WebSocket': The URL '" + url + "' is invalid.", 'SyntaxError');
        }
        const s = { url: href, readyState: 0, binaryType: 'blob', handlers: {} };
        state.set(this, s);
        __tell('ws-open', href);
        wait(() => { if (s.readyState !== 0) return; s.readyState = 1; fire(this, 'open'); }, 30);
      }
      send(data) {
        const s = state.get(this);
        if (!s) throw new TypeError('Illegal invocation');
        if (s.readyState === 0) throw new DOMException("Failed to execute 'send' on 'WebSocket': Still in CONNECTING state.", 'InvalidStateError');
        if (s.readyState !== 1) return;
        const out = (text) => __tell('ws-send', s.url, String(text).slice(0, 100000));
        if (typeof data === 'string') out(data);
        else if (data instanceof Blob) data.text().then(out, () => {});
        else if (data instanceof ArrayBuffer) out(new TextDecoder().decode(new Uint8Array(data)));
        else if (ArrayBuffer.isView(data)) out(new TextDecoder().decode(data));
        else out(String(data));
      }
      close(code, reason) {
        const s = state.get(this);
        if (!s) throw new TypeError('Illegal invocation');
        if (s.readyState >= 2) return;
        s.readyState = 2;
        wait(() => { s.readyState = 3; fire(this, 'close', { code: code === undefined ? 1005 : code, reason: reason === undefined ? '' : String(reason), wasClean: true }); }, 0);
      }
    };
    const proto = WebSocket.prototype;
    const nativeProto = Native.prototype;
    const like = (name, get, set) => {
      const d = Object.getOwnPropertyDescriptor(nativeProto, name) || {};
      Object.defineProperty(proto, name, { enumerable: true, configurable: true,
        get: __mask(__getter(get), d.get), set: set ? __mask(__setter(set), d.set) : undefined });
    };
    like('url', (self) => state.get(self).url);
    like('readyState', (self) => state.get(self).readyState);
    like('protocol', () => '');
    like('extensions', () => '');
    like('bufferedAmount', () => 0);
    like('binaryType', (self) => state.get(self).binaryType, (self, v) => { if (v === 'blob' || v === 'arraybuffer') state.get(self).binaryType = v; });
    for (const on of ['onopen', 'onmessage', 'onerror', 'onclose'])
      like(on, (self) => state.get(self).handlers[on] || null, (self, v) => { state.get(self).handlers[on] = typeof v === 'function' ? v : null; });
    for (const name of ['send', 'close']) {
      const d = Object.getOwnPropertyDescriptor(proto, name);
      Object.defineProperty(proto, name, { ...d, enumerable: true, value: __mask(d.value, nativeProto[name]) });
    }
    ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED'].forEach((k, i) => {
      Object.defineProperty(WebSocket, k, { value: i, enumerable: true });
      Object.defineProperty(proto, k, { value: i, enumerable: true });
    });
    __mask(WebSocket, Native);
    try { Object.defineProperty(proto, Symbol.toStringTag, { value: 'WebSocket', configurable: true }); } catch {}
    window.WebSocket = WebSocket;
  })();
`;

/**
 * What one render pass puts in the page before its own scripts, and how the render talks to it:
 * the fake clock, moved by an event whose type is drawn for the pass, and what the probes tell,
 * which comes back as console messages under a mark drawn for the pass (Playwright's bindings
 * would leave `__playwright__binding__` and its controller on every page's window).
 */
export class PassScript {
  private readonly event = `x${randomBytes(9).toString('hex')}`;
  private readonly mark = `\u2063${randomBytes(9).toString('hex')}:`;

  /**
   * The script: the prelude, `__tell(what, ...args)` (a console message the page never sees:
   * `console.debug` as it was before any script of the page), the clock, then each part (an
   * expression statement that may use `__tell`, `__mask`, `__method`, `__getter`, `__setter`
   * and `__wrapMethod`).
   */
  script(parts: string[]): string {
    const tell = `
  const __tell = ((debug, mark) => (...args) => {
    try { debug.call(console, mark + JSON.stringify(args)); } catch {}
  })(console.debug, ${JSON.stringify(this.mark)});
`;
    return `(() => {${MASK}${tell}${clockScript(this.event)}${WEBSOCKET}\n${parts.join('\n')}\n})();`;
  }

  /** What a probe told, when a console message is one of this pass's: `[what, ...args]`. */
  told(type: string, text: string): { what: string; args: unknown[] } | null {
    if (type !== 'debug' || !text.startsWith(this.mark)) return null;
    try {
      const said: unknown = JSON.parse(text.slice(this.mark.length));
      if (!Array.isArray(said) || typeof said[0] !== 'string') return null;
      return { what: said[0], args: said.slice(1, 4) };
    } catch {
      return null;
    }
  }

  /** Moves the clock of every frame of the page by `ms`. */
  async jump(page: Page, ms: number): Promise<void> {
    const move = `dispatchEvent(new CustomEvent(${JSON.stringify(this.event)}, { detail: ${Number(ms)} }))`;
    await Promise.all(page.frames().map((frame) => frame.evaluate(move).catch(() => {})));
  }
}
