import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// Whole-app renders with antd are slow in jsdom; leave room on a busy machine.
vi.setConfig({ testTimeout: 20_000 });
// Pages load on demand (one chunk per route), which takes a moment the first time in a test run.
configure({ asyncUtilTimeout: 5_000 });

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

afterEach(() => {
  cleanup();
  window.localStorage.clear();
  window.sessionStorage.clear();
  vi.restoreAllMocks();
});
