/** One file being checked: its text, where its lines start, and how its findings are reported. */
import fs from 'node:fs';
import type { Collector, DomainGroup } from './report.js';
import { REPORT_LIMITS } from './report.js';
import type { RuleId } from './rules.js';

/** A file whose per-file time budget ran out: what was found so far stands, the rest is unread. */
export class TimeUp extends Error {}

/**
 * The CPU time (ms) the calling thread has used: on Linux `/proc/thread-self/stat` (10 ms ticks;
 * read on the thread that asks, so in the check's worker it is the worker's own), else null.
 */
export function readThreadCpuMs(): number | null {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : null;
  } catch {
    return null;
  }
}
const threadCpu = readThreadCpuMs() === null ? null : readThreadCpuMs;

/**
 * The thread's CPU time when a scan starts, read at most every 50 ms of wall time (a site of 5,000
 * small files would otherwise read it 5,000 times): an older reading makes a scan's CPU time look
 * larger by at most the 50 ms since, never smaller.
 */
let lastStart: { at: number; cpu: number } | null = null;
function cpuAtStart(clock: () => number | null): number | null {
  if (clock !== threadCpu) return clock();
  const now = performance.now();
  if (lastStart && now - lastStart.at < 50) return lastStart.cpu;
  const cpu = clock();
  lastStart = cpu === null ? null : { at: now, cpu };
  return cpu;
}

/**
 * A file's time budget, counted in **the scanning thread's CPU time** where the system tells it
 * (docs/content-check.md "The per-file budget is CPU time"): on a loaded machine a scan then gets
 * the same work done as on a quiet one, instead of running out of wall-clock time while it waits
 * for a core (a scan cut short is never kept, so every later upload scanned the file again). The
 * CPU clock costs a file read, so it is read only once the wall clock (which a thread's CPU time
 * never outruns) says the budget may be spent. `stopsAt` (epoch ms) ends every scan whatever its
 * CPU time: the check as a whole must answer before its own time limit.
 */
export class ScanBudget {
  #wallDeadline: number;
  readonly #cpuDeadline: number | null;

  constructor(
    readonly ms: number,
    private readonly stopsAt = Number.POSITIVE_INFINITY,
    private readonly cpu: (() => number | null) | null = threadCpu,
  ) {
    this.#wallDeadline = performance.now() + ms;
    const started = this.cpu ? cpuAtStart(this.cpu) : null;
    this.#cpuDeadline = started === null ? null : started + ms;
  }

  /** Throws TimeUp once the budget is spent. */
  check(): void {
    const now = performance.now();
    if (now <= this.#wallDeadline && Date.now() <= this.stopsAt) return;
    if (Date.now() > this.stopsAt) throw new TimeUp();
    const used = this.#cpuDeadline === null ? null : this.cpu!();
    if (used === null || used >= this.#cpuDeadline!) throw new TimeUp();
    // Waited for a core meanwhile: at most this much more wall time before the CPU clock is asked again.
    this.#wallDeadline = now + Math.max(this.#cpuDeadline! - used, 10);
  }
}

export interface SiteContext {
  out: Collector;
  paths: ReadonlySet<string>;
  /** The site's paths by their lower-case form (built when first asked: caseVariant). */
  lowerPaths?: Map<string, string>;
  /** Sites are served at the root of their own host (SITES_SUBDOMAINS): "/x" links work there. */
  rootPathsWork: boolean;
  /** What each site script (by path) does that the pages including it inherit. */
  scriptFacts: SiteScripts;
}

/**
 * What each site script does, by path: a scanned script's facts, or a replayed one's as its trace
 * recorded them (text), parsed only when a page being scanned includes the script. A replayed
 * trace is checked against the text as it is (factsText of the parsed facts is that text again),
 * so a check that replays thousands of scripts parses none of them (docs/benchmarks.md "Digest
 * deploys", session 56).
 */
export class SiteScripts {
  readonly #byPath = new Map<string, ScriptFacts | string>();

  /** A script scanned in this check. */
  scanned(path: string, facts: ScriptFacts): void {
    this.#byPath.set(path, facts);
  }

  /** A script whose trace was replayed: its facts as the trace recorded them. */
  replayed(path: string, text: string): void {
    this.#byPath.set(path, text);
  }

  /** The script's facts (undefined: no such script in the site, or not a script). */
  facts(path: string): ScriptFacts | undefined {
    const known = this.#byPath.get(path);
    if (typeof known !== 'string') return known;
    const facts = factsFromText(known);
    this.#byPath.set(path, facts);
    return facts;
  }

  /** The script's facts as text, as a trace records them (null: none). */
  text(path: string): string | null {
    const known = this.#byPath.get(path);
    return typeof known === 'string' ? known : factsText(known);
  }
}

/** What a file's scripts do, gathered over all of them (a page's inline scripts count together). */
export interface ScriptFacts {
  /** Keystrokes, clipboard, whole forms, password fields: what makes a sink high. */
  sources: Set<string>;
  /**
   * Requests to other hosts that carry data; judged when the file is done. `onAction`: a page
   * the visitor's click or submit goes to, with data in its address (what a GET form does).
   */
  sinks: Array<{ host: string; sink: string; offset: number; onAction?: true }>;
  /** The script sets a form's action or submits a form itself. */
  drivesForms: boolean;
}

export const newScriptFacts = (): ScriptFacts => ({ sources: new Set(), sinks: [], drivesForms: false });

/**
 * What scanning one file did to and asked of its site (kept in trace-cache.ts, replayed in
 * analyze.ts): the findings and hosts it added, in order, and the answers it got about other
 * files. Replayed, it stands for the scan wherever those answers are still the same.
 */
export interface FileTrace {
  /** [rule, values, line, excerpt] of each finding, or [group, host] of each listed host. */
  events: Array<
    | [rule: RuleId, values: Record<string, string | number>, line: number | null, excerpt: string | null]
    | [group: DomainGroup, host: string]
    | [group: 'relative_asset', url: string]
  >;
  /** Each path asked about, and whether the site had it. */
  paths: Array<[path: string, present: boolean]>;
  /** Each site script whose facts were read, and those facts as text (null: none). */
  scripts: Array<[path: string, facts: string | null]>;
  /** A script's own facts, as text (what the pages including it inherit). */
  facts: string | null;
  /**
   * Whether the scan read the file's own path (to resolve a relative reference): then the trace
   * stands only for the same bytes at the same path, else for the same bytes anywhere.
   */
  usesPath?: boolean;
}

/** A trace's question "which file differs from this path only in case" (the answer after it). */
const CASE_QUERY = '\u0001';

/** The site's file whose path differs from `path` only in case (the first in upload order), or null. */
function caseVariantIn(site: SiteContext, path: string): string | null {
  if (!site.lowerPaths) {
    site.lowerPaths = new Map();
    for (const p of site.paths)
      if (!site.lowerPaths.has(p.toLowerCase())) site.lowerPaths.set(p.toLowerCase(), p);
  }
  const found = site.lowerPaths.get(path.toLowerCase());
  return found !== undefined && found !== path ? found : null;
}

/**
 * Whether the site answers a trace's question as it did (analyze.ts replays a trace only then): a
 * path's presence, or (CASE_QUERY) which file differs from a path only in case.
 */
export function answersAsBefore(site: SiteContext, [key, present]: [string, boolean]): boolean {
  if (!key.startsWith(CASE_QUERY)) return site.paths.has(key) === present;
  const [, path = '', answer = ''] = key.split(CASE_QUERY);
  return (caseVariantIn(site, path) ?? '') === answer;
}

/** Script facts as text, in their order (the order decides how a finding lists them). */
export function factsText(facts: ScriptFacts | undefined): string | null {
  return facts ? JSON.stringify([[...facts.sources], facts.sinks, facts.drivesForms]) : null;
}

export function factsFromText(text: string): ScriptFacts {
  const [sources, sinks, drivesForms] = JSON.parse(text) as [string[], ScriptFacts['sinks'], boolean];
  return { sources: new Set(sources), sinks, drivesForms };
}

export class FileContext {
  private lineStarts: number[] | null = null;
  readonly facts = newScriptFacts();
  /** Scans markup a script decodes (set by the site scan, which knows the HTML scanner). */
  scanMarkup?: (html: string, offset: number, depth: number) => void;
  private readonly once = new Set<string>();
  /** Decoded strings already scanned (a literal and the decoder call around it decode alike). */
  readonly decodedSeen = new Set<string>();

  /** Whether the scan asked for the file's path (trace-cache.ts keys such a trace by it). */
  pathRead = false;

  constructor(
    /** The file's path, as findings name it (what the scan itself reads goes through `path`). */
    readonly file: string,
    readonly text: string,
    readonly site: SiteContext,
    /** When the file's scan stops (its CPU time, see ScanBudget). */
    readonly budget: ScanBudget,
    /** Where what the scan does and asks is written down, to be replayed next time. */
    readonly trace: FileTrace = { events: [], paths: [], scripts: [], facts: null },
  ) {}

  /** The file's path, for resolving what it references: asking makes its trace path-bound. */
  get path(): string {
    this.pathRead = true;
    return this.file;
  }

  /** Paths and scripts already in the trace (a page often links to one file many times). */
  private readonly asked = new Set<string>();

  /** Whether the site has this file (asked through here, so the trace knows the answer mattered). */
  readonly paths: Pick<ReadonlySet<string>, 'has'> = {
    has: (path) => {
      const present = this.site.paths.has(path);
      if (!this.asked.has(path)) {
        this.asked.add(path);
        this.trace.paths.push([path, present]);
      }
      return present;
    },
  };

  /** The site's file whose path differs from `path` only in case (`Page.html` for `page.html`), or null. */
  caseVariant(path: string): string | null {
    const answer = caseVariantIn(this.site, path);
    const key = `${CASE_QUERY}${path}${CASE_QUERY}${answer ?? ''}`;
    if (!this.asked.has(key)) {
      this.asked.add(key);
      this.trace.paths.push([key, true]);
    }
    return answer;
  }

  /** What a site script does, as the pages including it inherit it. */
  scriptFacts(path: string): ScriptFacts | undefined {
    const facts = this.site.scriptFacts.facts(path);
    if (!this.asked.has(`\u0000${path}`)) {
      this.asked.add(`\u0000${path}`);
      this.trace.scripts.push([path, factsText(facts)]);
    }
    return facts;
  }

  checkTime() {
    this.budget.check();
  }

  line(offset: number): number {
    if (!this.lineStarts) {
      const starts = [0];
      for (let i = this.text.indexOf('\n'); i !== -1; i = this.text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    const s = this.lineStarts;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** The line at `offset`, trimmed; on a long (minified) line, the part around the offset. */
  excerpt(offset: number): string {
    const line = this.line(offset);
    const start = this.lineStarts![line - 1]!;
    const end = line < this.lineStarts!.length ? this.lineStarts![line]! - 1 : this.text.length;
    const max = REPORT_LIMITS.excerptChars;
    let from = start;
    let to = end;
    if (to - from > max) {
      from = Math.max(start, offset - Math.floor(max / 3));
      to = Math.min(end, from + max);
    }
    const cut = this.text.slice(from, to).replace(/\s+/g, ' ').trim();
    return `${from > start ? '…' : ''}${cut}${to < end ? '…' : ''}`;
  }

  add(rule: RuleId, values: Record<string, string | number>, offset: number | null) {
    const line = offset === null ? null : this.line(offset);
    const excerpt = offset === null ? null : this.excerpt(offset);
    this.trace.events.push([rule, values, line, excerpt]);
    this.site.out.add(rule, values, { file: this.file, line, excerpt });
  }

  /** Adds a finding once per file for the same rule and key (one host, one URL). */
  addOnce(rule: RuleId, key: string, values: Record<string, string | number>, offset: number | null) {
    const k = `${rule}\u0000${key}`;
    if (this.once.has(k)) return;
    this.once.add(k);
    this.add(rule, values, offset);
  }

  /**
   * A script or stylesheet the page loads by a relative path (`./assets/app.js`): the entry page's
   * first one is kept (report `entry_relative_asset`), for the render's history-routing check.
   */
  relativeAsset(url: string) {
    if (this.site.out.relativeAssets.has(this.file)) return;
    this.trace.events.push(['relative_asset', url]);
    this.site.out.relativeAssets.set(this.file, url);
  }

  domain(group: DomainGroup, host: string) {
    this.trace.events.push([group, host]);
    this.site.out.domains[group].add(host);
  }
}
