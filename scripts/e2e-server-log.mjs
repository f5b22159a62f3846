// What the browser tests' servers did while a test failed: each server (playwright.config.ts) writes
// its request log, JSON lines at debug level, to .tmp/e2e-server-<port>.log; scripts/test.mjs prints
// this summary for every failed try, so a CI log tells a request the server never answered, or
// answered late or with an error, from a click the page lost (docs/decisions/tests.md "A failed
// browser test's server log").
import fs from 'node:fs';

/** A request slower than this is named. */
export const SLOW_MS = 5_000;
/** At most this many requests of each kind are named. */
const MAX_NAMED = 15;

/** The server log of the browser tests' server on `port` (playwright.config.ts writes it). */
export const serverLogPath = (root, port) => `${root}/.tmp/e2e-server-${port}.log`;

/**
 * The requests a server log shows in [from, to] (ms since the epoch): those that began in it and
 * were not answered by its end (`unfinished`), those answered in it after SLOW_MS or more (`slow`),
 * and the lines at warn level or above logged in it (`problems`). Lines that are not JSON are
 * skipped (a line cut off by the server's end).
 */
export function requestsDuring(text, from, to) {
  const begun = new Map();
  const slow = [];
  const problems = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    const { time, reqId, msg, level } = entry;
    if (typeof time !== 'number' || time > to) continue;
    if (msg === 'incoming request' && reqId) {
      begun.set(reqId, { at: time, method: entry.req?.method, url: entry.req?.url });
      continue;
    }
    const request = reqId ? begun.get(reqId) : undefined;
    if (request && (msg === 'request completed' || msg === 'request errored')) {
      begun.delete(reqId);
      if (time >= from && entry.responseTime >= SLOW_MS) {
        slow.push({ ...request, ms: Math.round(entry.responseTime), status: entry.res?.statusCode });
      }
    }
    if (time >= from && level >= 40) {
      problems.push({ at: time, level, msg, url: request?.url, err: entry.err?.message });
    }
  }
  const unfinished = [...begun.values()].filter((r) => r.at >= from - SLOW_MS);
  return { unfinished, slow, problems };
}

/** The summary's lines for one failed try, read from the server's log file (none when it has none). */
export function describeServerLog(file, from, to) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [`  (no server log at ${file})`];
  }
  const { unfinished, slow, problems } = requestsDuring(text, from, to);
  const clock = (at) => new Date(at).toISOString().slice(11, 23);
  const lines = [];
  const name = (label, list, show) => {
    if (list.length === 0) return;
    lines.push(`  ${label} (${list.length}):`);
    for (const item of list.slice(0, MAX_NAMED)) lines.push(`    ${show(item)}`);
    if (list.length > MAX_NAMED) lines.push(`    … ${list.length - MAX_NAMED} more`);
  };
  name('not answered by the try’s end', unfinished, (r) => `${clock(r.at)} ${r.method} ${r.url}`);
  name(
    `answered after ${SLOW_MS / 1000} s or more`,
    slow,
    (r) => `${clock(r.at)} ${r.method} ${r.url} → ${r.status} in ${r.ms} ms`,
  );
  name('warnings and errors', problems, (p) => [clock(p.at), p.url, p.msg, p.err].filter(Boolean).join(' '));
  return lines.length ? lines : ['  every request in the try was answered within 5 s, none with an error'];
}
