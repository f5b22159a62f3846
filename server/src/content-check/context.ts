/** One file being checked: its text, where its lines start, and how its findings are reported. */
import type { Collector, DomainGroup } from './report.js';
import { REPORT_LIMITS } from './report.js';
import type { RuleId } from './rules.js';

/** A file whose per-file time budget ran out: what was found so far stands, the rest is unread. */
export class TimeUp extends Error {}

export interface SiteContext {
  out: Collector;
  paths: ReadonlySet<string>;
  /** Sites are served at the root of their own host (SITES_SUBDOMAINS): "/x" links work there. */
  rootPathsWork: boolean;
  /** What each site script (by path) does that the pages including it inherit. */
  scriptFacts: Map<string, ScriptFacts>;
}

/** What a file's scripts do, gathered over all of them (a page's inline scripts count together). */
export interface ScriptFacts {
  /** Keystrokes, clipboard, whole forms, password fields: what makes a sink high. */
  sources: Set<string>;
  /** Requests to other hosts that carry data; judged when the file is done. */
  sinks: Array<{ host: string; sink: string; offset: number }>;
  /** The script sets a form's action or submits a form itself. */
  drivesForms: boolean;
}

export const newScriptFacts = (): ScriptFacts => ({ sources: new Set(), sinks: [], drivesForms: false });

export class FileContext {
  private lineStarts: number[] | null = null;
  readonly facts = newScriptFacts();
  /** Scans markup a script decodes (set by the site scan, which knows the HTML scanner). */
  scanMarkup?: (html: string, offset: number, depth: number) => void;
  private readonly once = new Set<string>();
  /** Decoded strings already scanned (a literal and the decoder call around it decode alike). */
  readonly decodedSeen = new Set<string>();

  constructor(
    readonly path: string,
    readonly text: string,
    readonly site: SiteContext,
    /** Milliseconds since the time origin after which the file's scan stops. */
    readonly deadline: number,
  ) {}

  checkTime() {
    if (performance.now() > this.deadline) throw new TimeUp();
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
    this.site.out.add(rule, values, {
      file: this.path,
      line: offset === null ? null : this.line(offset),
      excerpt: offset === null ? null : this.excerpt(offset),
    });
  }

  /** Adds a finding once per file for the same rule and key (one host, one URL). */
  addOnce(rule: RuleId, key: string, values: Record<string, string | number>, offset: number | null) {
    const k = `${rule}\u0000${key}`;
    if (this.once.has(k)) return;
    this.once.add(k);
    this.add(rule, values, offset);
  }

  domain(group: DomainGroup, host: string) {
    this.site.out.domains[group].add(host);
  }
}
