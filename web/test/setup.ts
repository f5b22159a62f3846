import '@testing-library/jest-dom/vitest';
import { act, cleanup, configure, getConfig } from '@testing-library/react';
import { ConfigProvider, Modal, message, notification } from 'antd';
import { afterEach, vi } from 'vitest';

// Whole-app renders with antd are slow in jsdom, and a loaded 2-core runner (load average 20 and
// more beside other suites) makes a page's first render take tens of seconds. Tests wait for what
// the page shows, so these bounds only decide how long a real failure takes to be reported.
vi.setConfig({ testTimeout: 120_000 });
// Pages load on demand (one chunk per route), which takes a moment the first time in a test run.
configure({ asyncUtilTimeout: 30_000 });

/**
 * A query that finds nothing prints the whole page into its error, and `findBy…`/`waitFor` retry
 * a query every 50 ms until it finds: each miss printed the page again for an error thrown away
 * (a fifteenth of a page test's time). Testing Library marks those tries
 * (`_disableExpensiveErrorDiagnostics`): their errors carry the message alone, and the one that
 * ends a wait gets the page from waitFor's timeout, as before. A query outside a wait prints it
 * at once, as before.
 */
const printingError = getConfig().getElementError;
configure({
  getElementError: (message, container) => {
    const inWait = (getConfig() as { _disableExpensiveErrorDiagnostics?: boolean })
      ._disableExpensiveErrorDiagnostics;
    if (!inWait) return printingError(message, container);
    const error = new Error(message ?? '');
    error.name = 'TestingLibraryElementError';
    return error;
  },
});

/**
 * jsdom lacks a few browser APIs antd relies on. Media queries are answered for a desktop-sized
 * window, so layouts render as they do on a laptop screen.
 */
if (!window.matchMedia) {
  const widthMatches = (query: string): boolean => {
    const width = window.innerWidth || 1280;
    const min = /min-width:\s*([\d.]+)px/.exec(query);
    const max = /max-width:\s*([\d.]+)px/.exec(query);
    if (min && width < Number(min[1])) return false;
    if (max && width > Number(max[1])) return false;
    return Boolean(min || max);
  };
  window.matchMedia = (query: string): MediaQueryList => ({
    matches: widthMatches(query),
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  });
}

if (!('ResizeObserver' in window)) {
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  Object.assign(window, { ResizeObserver: ResizeObserverStub });
}

// Scroll restoration between routes; jsdom has no layout to scroll.
window.scrollTo = () => {};

// antd measures scrollbars with pseudo-element styles, which jsdom does not implement.
const originalGetComputedStyle = window.getComputedStyle.bind(window);
window.getComputedStyle = (element: Element) => originalGetComputedStyle(element);

/**
 * antd's static message and notification (the user menu's sign-out message) render in a React root
 * of their own that outlives each test's render. Left alone, a message closes after its duration
 * and plays a leave motion jsdom never ends, so React work for it could run once the file's jsdom
 * was gone ("window is not defined", an unhandled error that fails the run). In tests they appear
 * without motion and stay until the test ends (no timers at all), and each test ends by removing
 * them inside act, so React's work for them is done before the test is. The theme is the static
 * holders' base: AntdShell's holderRender wraps them in the app's theme, which inherits it and
 * leaves motion alone.
 */
ConfigProvider.config({ theme: { token: { motion: false } } });
message.config({ duration: 0 });
notification.config({ duration: 0 });

/**
 * antd's warnings (a deprecated prop or component, a misuse) print in development only, so the
 * built app's console never shows them: here any of them fails the test whose render printed it.
 * The app printed `Space direction` and `List` deprecations on most screens.
 */
const antdWarnings: string[] = [];
for (const level of ['error', 'warn'] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (text.includes('[antd')) antdWarnings.push(text);
    original(...args);
  };
}

afterEach(() => {
  cleanup();
  // What feedback is still on the page now is static (App's went with the render). Only destroy
  // what is there: destroying makes the static root if there is none yet, and one made before
  // AntdShell set holderRender is replaced on its next render, losing what it shows.
  act(() => {
    if (document.querySelector('.ant-message-notice-wrapper')) message.destroy();
    if (document.querySelector('.ant-notification-notice-wrapper')) notification.destroy();
    Modal.destroyAll();
  });
  // Had antd kept a motion going after all (a new version, a new kind of static feedback), React
  // work would still be queued: say so here rather than as an unhandled error after the file.
  const left = document.querySelector(
    '.ant-message-notice-wrapper, .ant-notification-notice-wrapper, .ant-modal-root',
  );
  if (left) throw new Error(`antd feedback left after the test: ${left.textContent}`);
  window.localStorage.clear();
  window.sessionStorage.clear();
  vi.restoreAllMocks();
  const warned = antdWarnings.splice(0);
  if (warned.length > 0) throw new Error(`antd warned:\n${[...new Set(warned)].join('\n')}`);
});
