/**
 * The render worker's findings (docs/content-check.md "Runtime rules", docs/render.md): what the
 * entry page did when it ran, turned into findings beside the static ones. They live in the same
 * stored report; their rules start with "runtime.", so a re-render replaces them and leaves the
 * static findings, counts and level as the upload's check made them.
 */
import {
  CANARY_ENCODING_LABELS,
  CANARY_KIND_LABELS,
  CANARY_VIA_LABELS,
  type ContentCheckReport,
  type ContentCheckRuntime,
  type ContentCheckSeverity,
  type ContentFinding,
  format,
  messages,
} from '@sitehall/contracts';
import { SECRET_CANARIES } from '../render/canaries.js';
import type { Observations } from '../render/render-page.js';
import { SEVERITIES } from './report.js';
import type { Rule } from './rules.js';
import { describeScriptError } from './script-errors.js';

const m = messages.review.contentCheck;

const rule = (
  kind: Rule['kind'],
  severity: ContentCheckSeverity,
  category: Rule['category'],
  message: string,
): Rule => ({ kind, severity, category, appliesTo: ['site'], message });

export const RUNTIME_RULES = {
  'runtime.data-sent': rule('runtime_request', 'high', 'risk', m.runtimeDataSent),
  'runtime.external-request': rule('runtime_request', 'medium', 'risk', m.runtimeExternalRequest),
  'runtime.external-asset': rule('runtime_request', 'info', 'risk', m.runtimeExternalAsset),
  'runtime.navigation': rule('runtime_navigation', 'high', 'risk', m.runtimeNavigation),
  'runtime.download': rule('runtime_download', 'high', 'risk', m.runtimeDownload),
  'runtime.permission': rule('runtime_prompt', 'medium', 'risk', m.runtimePermission),
  'runtime.dialog': rule('runtime_prompt', 'low', 'risk', m.runtimeDialog),
  'runtime.blank': rule('blank_page', 'medium', 'usability', m.runtimeBlank),
  'runtime.console-error': rule('console_error', 'low', 'usability', m.runtimeScriptError),
  'runtime.missing': rule('missing_file', 'low', 'usability', m.runtimeMissing),
  // What the visitor typed, found in what the page sent (docs/render.md "The visitor").
  'runtime.canary-leak': rule('runtime_canary', 'high', 'risk', m.runtimeCanaryLeak),
  'runtime.canary-contact': rule('runtime_canary', 'info', 'risk', m.runtimeCanaryContact),
  'runtime.canary-own': rule('runtime_canary', 'info', 'risk', m.runtimeCanaryOwn),
  // A render that could not see everything says so (docs/render.md "When a render fails").
  'runtime.load-timeout': rule('render_failed', 'medium', 'risk', m.runtimeLoadTimeout),
  'runtime.render-failed': rule('render_failed', 'medium', 'risk', m.runtimeRenderFailed),
} as const satisfies Record<string, Rule>;
export type RuntimeRuleId = keyof typeof RUNTIME_RULES;

/** Request types that carry data out by their nature (or by a method other than GET). */
const SENDING = new Set(['ping', 'websocket', 'eventsource']);
/** Types that only fetch something to show: info, unless a query string carries data along. */
const ASSETS = new Set(['stylesheet', 'font', 'image', 'media']);

function severityOfRequest(r: { method: string; resourceType: string; url: string }): RuntimeRuleId {
  if (r.method !== 'GET' || SENDING.has(r.resourceType)) return 'runtime.data-sent';
  if (ASSETS.has(r.resourceType))
    return r.url.includes('?') ? 'runtime.external-request' : 'runtime.external-asset';
  return 'runtime.external-request';
}

const ORDER: RuntimeRuleId[] = ['runtime.data-sent', 'runtime.external-request', 'runtime.external-asset'];

/** The findings of one render, most severe first; `failed` is the reason of a render that failed. */
export function runtimeFindings(
  obs: Observations,
  blank: boolean,
  failed: string | null = null,
): ContentFinding[] {
  const out: ContentFinding[] = [];
  const add = (id: RuntimeRuleId, values: Record<string, string | number>, excerpt: string | null = null) => {
    const r = RUNTIME_RULES[id];
    out.push({
      severity: r.severity,
      category: r.category,
      kind: r.kind,
      rule: id,
      message: format(r.message, values),
      file: null,
      line: null,
      excerpt,
    });
  };
  // One finding per host, at the worst of its requests.
  const byHost = new Map<
    string,
    { worst: RuntimeRuleId; count: number; types: Set<string>; first: string }
  >();
  for (const r of obs.externalRequests) {
    const id = severityOfRequest(r);
    const h = byHost.get(r.host);
    if (!h)
      byHost.set(r.host, {
        worst: id,
        count: 1,
        types: new Set([r.resourceType]),
        first: `${r.method} ${r.url}`,
      });
    else {
      h.count++;
      h.types.add(r.resourceType);
      if (ORDER.indexOf(id) < ORDER.indexOf(h.worst)) {
        h.worst = id;
        h.first = `${r.method} ${r.url}`;
      }
    }
  }
  for (const l of obs.leaks) {
    const values = {
      what: CANARY_KIND_LABELS[l.kind],
      field: l.field || CANARY_KIND_LABELS[l.kind],
      host: l.host,
      via: CANARY_VIA_LABELS[l.via] ?? l.via,
      encoding: CANARY_ENCODING_LABELS[l.encoding] ?? l.encoding,
    };
    const id: RuntimeRuleId = !l.external
      ? 'runtime.canary-own'
      : SECRET_CANARIES.has(l.kind)
        ? 'runtime.canary-leak'
        : 'runtime.canary-contact';
    add(id, values, l.url.slice(0, 160));
  }
  if (failed !== null) add('runtime.render-failed', { reason: failed });
  else if (obs.loadTimedOut) add('runtime.load-timeout', { seconds: Math.round(obs.loadTimeoutMs / 1000) });
  for (const [host, h] of byHost)
    add(h.worst, { host, count: h.count, types: [...h.types].join('、') }, h.first.slice(0, 160));
  const leftFor = new Set(obs.navigations.filter((n) => n.external).map((n) => n.host));
  for (const host of leftFor) add('runtime.navigation', { host });
  for (const url of obs.downloads) add('runtime.download', { url: url.slice(0, 200) });
  for (const what of obs.permissions) add('runtime.permission', { what });
  for (const d of obs.dialogs) add('runtime.dialog', { type: d.type, message: d.message });
  if (blank) add('runtime.blank', {});
  // Chinese for the reviewer; Chromium's English original is the excerpt.
  for (const text of obs.consoleErrors.slice(0, 5))
    add('runtime.console-error', describeScriptError(text), text.slice(0, 160));
  for (const url of obs.missing) add('runtime.missing', { url });
  return out.sort(byImportance);
}

const RANK: Record<ContentCheckSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };
const byImportance = (a: ContentFinding, b: ContentFinding) =>
  (a.category === b.category ? 0 : a.category === 'risk' ? -1 : 1) || RANK[a.severity] - RANK[b.severity];

const emptyCounts = (): Record<ContentCheckSeverity, number> => ({ high: 0, medium: 0, low: 0, info: 0 });

/**
 * The stored report with this render's findings in place of the previous render's: counts, level
 * and usability count are the static check's plus the runtime ones.
 */
export function mergeRuntime(
  report: ContentCheckReport,
  obs: Observations,
  blank: boolean,
  at: string,
  failed: string | null = null,
): ContentCheckReport {
  const previous = report.runtime;
  const staticFindings = report.findings.filter((f) => !f.rule?.startsWith('runtime.'));
  const staticCounts = { ...report.counts };
  let staticUsability = report.usability_count;
  if (previous) {
    for (const s of SEVERITIES) staticCounts[s] = Math.max(0, staticCounts[s] - previous.risk_counts[s]);
    staticUsability -= report.findings.filter(
      (f) => f.rule?.startsWith('runtime.') && f.category === 'usability',
    ).length;
  }
  const found = runtimeFindings(obs, blank, failed);
  const riskCounts = emptyCounts();
  for (const f of found) if (f.category === 'risk') riskCounts[f.severity]++;
  const counts = emptyCounts();
  for (const s of SEVERITIES) counts[s] = staticCounts[s] + riskCounts[s];
  const runtime: ContentCheckRuntime = {
    rendered_at: at,
    external_requests: obs.externalRequests.map((r) => ({
      method: r.method,
      url: r.url,
      resource_type: r.resourceType,
      allowed: r.allowed,
    })),
    navigations: obs.navigations.map((n) => n.url),
    downloads: obs.downloads,
    dialogs: obs.dialogs.map((d) => `${d.type}: ${d.message}`),
    permissions: obs.permissions,
    console_errors: obs.consoleErrors,
    missing: obs.missing,
    blank,
    canary_leaks: obs.leaks.map((l) => ({
      kind: l.kind,
      field: l.field,
      host: l.host,
      url: l.url,
      via: l.via,
      encoding: l.encoding,
      external: l.external,
    })),
    load_timed_out: obs.loadTimedOut,
    failed,
    profiles: obs.profiles,
    risk_counts: riskCounts,
  };
  return {
    ...report,
    level: SEVERITIES.find((s) => counts[s] > 0) ?? 'clean',
    counts,
    // Risk before usability, most severe first; within a severity what the page did comes first.
    findings: [...found, ...staticFindings].sort(byImportance),
    usability_count: Math.max(0, staticUsability) + found.filter((f) => f.category === 'usability').length,
    runtime,
  };
}
