/**
 * The report: findings collected in order of severity (counted in full, listed up to the caps),
 * and reading stored reports, including version 1 ones from before the risk/usability split.
 */
import type {
  ContentCheckCategory,
  ContentCheckKind,
  ContentCheckLevel,
  ContentCheckReport,
  ContentCheckSeverity,
  ContentCheckSummary,
  ContentFinding,
} from '@sitehall/contracts';
import { CONTENT_CHECK_LEVEL_LABELS, format, messages, USABILITY_KINDS } from '@sitehall/contracts/messages';
import { LEVEL_RANK } from '../domain/content-risk.js';
import { RULES, type RuleId } from './rules.js';
import { missingPath } from './urls.js';

export const REPORT_LIMITS = {
  /** Findings listed in the report (all are counted). */
  maxFindings: 300,
  /** Findings of one rule listed per file. */
  maxPerRuleAndFile: 10,
  /** Characters of a line kept as the finding's excerpt. */
  excerptChars: 160,
} as const;

/** A site with no files: what a reference resolves to, whatever the site holds. */
const NOTHING = { has: () => false };

export const SEVERITIES: readonly ContentCheckSeverity[] = ['high', 'medium', 'low', 'info'];
const SEVERITY_RANK: Record<ContentCheckSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };

const USABILITY = new Set<string>(USABILITY_KINDS);
export const categoryOf = (kind: ContentCheckKind): ContentCheckCategory =>
  USABILITY.has(kind) ? 'usability' : 'risk';

export type DomainGroup = keyof ContentCheckReport['external_domains'];

export class Collector {
  private list: ContentFinding[] = [];
  private perKey = new Map<string, number>();
  private omitted = 0;
  readonly counts: Record<ContentCheckSeverity, number> = { high: 0, medium: 0, low: 0, info: 0 };
  usabilityCount = 0;
  /** The site paths of the missing files found (report `missing_paths`). */
  readonly missingPaths = new Set<string>();
  /** Each page's first script or stylesheet loaded by a relative path (FileContext.relativeAsset). */
  readonly relativeAssets = new Map<string, string>();
  readonly domains: Record<DomainGroup, Set<string>> = {
    scripts: new Set(),
    stylesheets: new Set(),
    frames: new Set(),
    forms: new Set(),
    redirects: new Set(),
    script_hosts: new Set(),
  };

  add(
    rule: RuleId,
    values: Record<string, string | number>,
    at: { file: string | null; line: number | null; excerpt?: string | null },
  ) {
    const r = RULES[rule];
    if (r.category === 'risk') this.counts[r.severity]++;
    else this.usabilityCount++;
    if ((rule === 'ref.missing-file' || rule === 'ref.missing-file-case') && at.file !== null) {
      const path = missingPath(String(values.url), at.file, NOTHING);
      if (path !== null && this.missingPaths.size < REPORT_LIMITS.maxFindings) this.missingPaths.add(path);
    }
    const key = `${rule}\u0000${at.file ?? ''}`;
    const n = this.perKey.get(key) ?? 0;
    if (n >= REPORT_LIMITS.maxPerRuleAndFile) {
      this.omitted++;
      return;
    }
    this.perKey.set(key, n + 1);
    this.list.push({
      severity: r.severity,
      category: r.category,
      kind: r.kind,
      rule,
      message: format(r.message, values),
      file: at.file,
      line: at.line,
      excerpt: at.excerpt ?? null,
    });
    // Keep memory flat on huge sites: trim to the most severe now and then.
    if (this.list.length >= REPORT_LIMITS.maxFindings * 4) this.trim();
  }

  private trim() {
    this.list.sort(byImportance);
    const cut = this.list.length - REPORT_LIMITS.maxFindings;
    if (cut > 0) {
      this.omitted += cut;
      this.list.length = REPORT_LIMITS.maxFindings;
    }
  }

  report(extra: {
    largest: Array<{ file: string; size: number }>;
    scanned: number;
    partial: string[];
    entry?: string | null;
  }): ContentCheckReport {
    this.trim();
    const sorted = (s: Set<string>) => [...s].sort();
    const level = levelOf(this.counts);
    return {
      version: 2,
      level,
      counts: { ...this.counts },
      reason: reasonOf({ level, counts: this.counts, findings: this.list }),
      usability_problems: usabilityProblemsOf(this.list),
      checked_at: new Date().toISOString(),
      findings: this.list,
      usability_count: this.usabilityCount,
      omitted_findings: this.omitted,
      external_domains: {
        scripts: sorted(this.domains.scripts),
        stylesheets: sorted(this.domains.stylesheets),
        frames: sorted(this.domains.frames),
        forms: sorted(this.domains.forms),
        redirects: sorted(this.domains.redirects),
        script_hosts: sorted(this.domains.script_hosts),
      },
      largest_files: extra.largest,
      scanned_files: extra.scanned,
      partially_scanned_files: extra.partial,
      missing_paths: [...this.missingPaths].sort(),
      entry_relative_asset: (extra.entry && this.relativeAssets.get(extra.entry)) ?? null,
    };
  }
}

export const levelOf = (counts: Record<ContentCheckSeverity, number>): ContentCheckLevel =>
  SEVERITIES.find((s) => counts[s] > 0) ?? 'clean';

const m = messages.review.contentCheck;

/**
 * Why a report got its level, in one sentence for the reviewer (docs/content-check.md "Levels"):
 * the first risk finding at that level (findings are kept most severe first, what the page did
 * before what its files say) and how many more there are. High means almost certainly hostile,
 * medium worth a look, anything lower information.
 */
export function reasonOf(report: Pick<ContentCheckReport, 'level' | 'counts' | 'findings'>): string {
  const { level } = report;
  if (level === 'clean') return m.reasonClean;
  const top = report.findings.find((f) => f.category === 'risk' && f.severity === level);
  const finding = (top?.message ?? CONTENT_CHECK_LEVEL_LABELS[level]).replace(/[。.]$/, '');
  const others = report.counts[level] - (top ? 1 : 0);
  const more = others > 0 ? format(m.reasonMore, { count: others }) : '';
  if (level === 'high') return format(m.reasonHigh, { finding, more });
  if (level === 'medium') return format(m.reasonMedium, { finding, more });
  return format(m.reasonInfo, { level: CONTENT_CHECK_LEVEL_LABELS[level], finding, more });
}

/**
 * The usability findings that are problems (above info: a file missing, a script error, no entry
 * page), not notes: what the review list shows beside the risk level (docs/content-check.md
 * "Levels"). Counted from the listed findings.
 */
export const usabilityProblemsOf = (findings: readonly ContentFinding[]): number =>
  findings.filter((f) => f.category === 'usability' && f.severity !== 'info').length;

function byImportance(a: ContentFinding, b: ContentFinding): number {
  return (
    (a.category === b.category ? 0 : a.category === 'risk' ? -1 : 1) ||
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (a.file ?? '').localeCompare(b.file ?? '') ||
    (a.line ?? 0) - (b.line ?? 0)
  );
}

/**
 * Reads the stored JSON of a deployment's check; null when absent or unreadable. A version 1
 * report (before the risk/usability split) is upgraded: each finding's category comes from its
 * kind, and the level and counts are recomputed from the listed risk findings (what version 1 did
 * not list is not known by category).
 */
export function parseContentCheck(json: string | null): ContentCheckReport | null {
  if (!json) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const report = raw as Omit<ContentCheckReport, 'version'> & { version: number };
  // The sentence is recomputed on every read, so reports stored before it (or under older wording) have it.
  if (report.version === 2)
    return {
      ...report,
      reason: reasonOf(report),
      usability_problems: usabilityProblemsOf(report.findings ?? []),
    } as ContentCheckReport;
  if (report.version !== 1 || !Array.isArray(report.findings)) return null;
  const findings = report.findings.map((f) => ({ ...f, category: f.category ?? categoryOf(f.kind) }));
  const counts: Record<ContentCheckSeverity, number> = { high: 0, medium: 0, low: 0, info: 0 };
  for (const f of findings) if (f.category === 'risk') counts[f.severity]++;
  const level = levelOf(counts);
  return {
    ...report,
    version: 2,
    level,
    counts,
    reason: reasonOf({ level, counts, findings }),
    usability_problems: usabilityProblemsOf(findings),
    findings,
    usability_count: findings.filter((f) => f.category === 'usability').length,
    external_domains: {
      ...report.external_domains,
      script_hosts: report.external_domains?.script_hosts ?? [],
    },
  };
}

export function summarizeContentCheck(report: ContentCheckReport | null): ContentCheckSummary | null {
  return report
    ? {
        level: report.level,
        counts: report.counts,
        reason: report.reason,
        usability_problems: usabilityProblemsOf(report.findings),
      }
    : null;
}

/** How the site is served now, which decides whether some notes still hold (reportAsServed). */
export interface ServedAs {
  /** Each site at the root of its own host (domain/site-urls.ts `sitesAtHostRoot`): `/x` works. */
  sitesAtRoot: boolean;
  /** The project answers deep links (单页应用回退, or a 200 rewrite of its own `_redirects`). */
  answersDeepLinks: boolean;
}

/**
 * A stored report as it reads now (docs/content-check.md "Where sites live"): a
 * root-absolute note is dropped where sites live at their own host's root (reports made before the
 * install, or the check, knew it), and the note to turn on 单页应用回退 once the project answers
 * deep links. Level and counts are the risk findings', which these notes never touch.
 */
export function reportAsServed(report: ContentCheckReport, served: ServedAs): ContentCheckReport {
  const stale = (f: ContentFinding) =>
    (served.sitesAtRoot && f.kind === 'root_absolute_link') ||
    (served.answersDeepLinks && f.kind === 'history_routing');
  const dropped = report.findings.filter(stale).length;
  if (dropped === 0) return report;
  const findings = report.findings.filter((f) => !stale(f));
  return {
    ...report,
    findings,
    usability_count: Math.max(0, report.usability_count - dropped),
    usability_problems: usabilityProblemsOf(findings),
  };
}

/** The uploader's list: the usability findings of a version's check. */
export function usabilityFindings(report: ContentCheckReport | null): ContentFinding[] {
  return report ? report.findings.filter((f) => f.category === 'usability') : [];
}

/** The stored risk rank of a report (deployments.content_risk), for the review list's sort and filter. */
export const riskRankOf = (report: ContentCheckReport): number => LEVEL_RANK[report.level];
