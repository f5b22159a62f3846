/**
 * The render worker's findings (docs/content-check.md "Runtime rules", docs/render.md): what the
 * entry page did when it ran, turned into findings beside the static ones. They live in the same
 * stored report; their rules start with "runtime.", so a re-render replaces them and leaves the
 * static findings, counts and level as the upload's check made them.
 */
import type {
  ContentCheckReport,
  ContentCheckRuntime,
  ContentCheckSeverity,
  ContentFinding,
} from '@sitehall/contracts';
import {
  CANARY_ENCODING_LABELS,
  CANARY_KIND_LABELS,
  CANARY_VIA_LABELS,
  format,
  messages,
} from '@sitehall/contracts/messages';
import { SECRET_CANARIES } from '../render/canaries.js';
import type { CanaryLeak, Observations } from '../render/render-page.js';
import { FLOW_ORDER, type FlowJudgement, judgeRequest, SPLIT_SENDS } from './flows.js';
import { levelOf, reasonOf, SEVERITIES, usabilityProblemsOf } from './report.js';
import type { Rule } from './rules.js';
import { describeScriptError } from './script-errors.js';
import { PURPOSE_LABELS, serviceAccepts, serviceOf } from './services.js';

const m = messages.review.contentCheck;

const rule = (
  kind: Rule['kind'],
  severity: ContentCheckSeverity,
  category: Rule['category'],
  message: string,
): Rule => ({ kind, severity, category, appliesTo: ['site'], message });

export const RUNTIME_RULES = {
  // Requests to other hosts, judged by what they carry and where (flows.ts).
  'runtime.data-dropped': rule('runtime_request', 'high', 'risk', m.runtimeDataDropped),
  'runtime.sensitive-sent': rule('runtime_request', 'high', 'risk', m.runtimeSensitiveSent),
  'runtime.data-hidden': rule('runtime_request', 'high', 'risk', m.runtimeDataHidden),
  'runtime.data-sent': rule('runtime_request', 'medium', 'risk', m.runtimeDataSent),
  'runtime.external-request': rule('runtime_request', 'low', 'risk', m.runtimeExternalRequest),
  'runtime.service': rule('runtime_request', 'info', 'risk', m.runtimeService),
  'runtime.external-asset': rule('runtime_request', 'info', 'risk', m.runtimeExternalAsset),
  'runtime.navigation': rule('runtime_navigation', 'high', 'risk', m.runtimeNavigation),
  // The visitor's click or submitted form led elsewhere: what a link or a form does, not the page
  // leaving on its own (a form's data and its host are judged by the request rules and the canaries).
  'runtime.navigation-on-action': rule('redirect', 'low', 'risk', m.runtimeNavigationOnAction),
  'runtime.download': rule('runtime_download', 'high', 'risk', m.runtimeDownload),
  'runtime.permission': rule('runtime_prompt', 'medium', 'risk', m.runtimePermission),
  'runtime.memory': rule('runtime_memory', 'high', 'risk', m.runtimeMemory),
  'runtime.dialog': rule('runtime_prompt', 'low', 'risk', m.runtimeDialog),
  'runtime.blank': rule('blank_page', 'medium', 'usability', m.runtimeBlank),
  'runtime.console-error': rule('console_error', 'low', 'usability', m.runtimeScriptError),
  'runtime.missing': rule('missing_file', 'low', 'usability', m.runtimeMissing),
  'runtime.history-routing': rule('history_routing', 'info', 'usability', m.runtimeHistoryRouting),
  'runtime.relative-assets': rule('relative_assets', 'low', 'usability', m.relativeAssets),
  // What the visitor typed, found in what the page sent (docs/render.md "The visitor").
  'runtime.canary-leak': rule('runtime_canary', 'high', 'risk', m.runtimeCanaryLeak),
  'runtime.canary-hidden': rule('runtime_canary', 'high', 'risk', m.runtimeCanaryHidden),
  'runtime.canary-contact': rule('runtime_canary', 'info', 'risk', m.runtimeCanaryContact),
  'runtime.canary-own': rule('runtime_canary', 'info', 'risk', m.runtimeCanaryOwn),
  // A render that could not see everything says so (docs/render.md "When a render fails").
  'runtime.load-timeout': rule('render_failed', 'medium', 'risk', m.runtimeLoadTimeout),
  'runtime.render-failed': rule('render_failed', 'medium', 'risk', m.runtimeRenderFailed),
} as const satisfies Record<string, Rule>;
export type RuntimeRuleId = keyof typeof RUNTIME_RULES;

/**
 * What the static check saw, for judging what the page did: the hosts its files name (literally
 * or decoded) and whether they hide code (an obfuscation finding of medium or more).
 */
export interface StaticView {
  hosts: ReadonlySet<string>;
  hidesCode: boolean;
  /** Site paths (`/css/a.css`) the static check already reported missing: not listed again. */
  missing?: ReadonlySet<string>;
  /** The entry page's first script or stylesheet loaded by a relative path, if any. */
  relativeAsset?: string | null;
}

export function staticViewOf(report: ContentCheckReport): StaticView {
  const hosts = new Set(Object.values(report.external_domains).flat());
  const hidesCode = report.findings.some(
    (f) => f.kind === 'obfuscation' && (f.severity === 'high' || f.severity === 'medium'),
  );
  return {
    hosts,
    hidesCode,
    missing: new Set((report.missing_paths ?? []).map((p) => `/${p}`)),
    relativeAsset: report.entry_relative_asset ?? null,
  };
}

/**
 * A console message that is a missing file, not a script error (docs/content-check.md "Runtime
 * rules"): the platform's 404 is text/plain with nosniff, so Chromium refuses it as a script or a
 * stylesheet ("Refused to execute script from '…' because its MIME type…"). Gives the path asked
 * (`/css/a.css`, the URL's path; '' when the message names none), or null for any other message.
 */
export function refusedMissing(text: string): string | null {
  const named =
    /^Refused to (?:execute script|apply style|load the font|load the image) from '([^']*)' because its MIME type/.exec(
      text,
    );
  if (named) {
    try {
      return decodeURIComponent(new URL(named[1]!).pathname).normalize('NFC');
    } catch {
      return '';
    }
  }
  return /^Failed to load module script: .*MIME type/.test(text) ? '' : null;
}

/** Whether a path the page asked (its URL's path) is one of these site paths (`/css/a.css`), under a prefix or not. */
const namesOneOf = (asked: string, paths: Iterable<string>): boolean => {
  for (const p of paths) if (asked === p || asked.endsWith(p)) return true;
  return false;
};

/** Request types that are no request the page made by script: link hints and CSS side channels. */
const HIDDEN_CHANNELS = new Set([
  'css',
  'dns-prefetch',
  'preconnect',
  'prefetch',
  'prerender',
  'preload',
  'modulepreload',
]);

/**
 * Why a typed value that is no secret (a name, a phone number, other text) leaving for another
 * host is still almost certainly hostile (docs/content-check.md "Runtime rules"), or null: keys
 * pressed outside any field, or a value that left key by key or in a logger's batches (keystrokes), through a link hint's host or a stylesheet's
 * url() (a side channel), or for a host that no file of the site names, or from code the files
 * hide, and that is no service meant to receive messages (a hidden destination).
 */
export function hiddenSend(
  l: Pick<CanaryLeak, 'kind' | 'host' | 'via' | 'encoding'>,
  seen: StaticView,
): 'keystrokes' | 'channel' | 'destination' | null {
  if (l.kind === 'keystrokes' || l.encoding === 'keys' || l.encoding === 'fragment') return 'keystrokes';
  if (HIDDEN_CHANNELS.has(l.via)) return 'channel';
  const bare = l.host.replace(/:\d+$/, '');
  if (serviceAccepts(serviceOf(bare), 'message')) return null;
  if (!seen.hosts.has(bare) || seen.hidesCode) return 'destination';
  return null;
}

/** What a render found besides the page's observations. */
export interface RenderOutcome {
  /** The renderer passed the memory limit (render/memory-watchdog.ts) and was ended: the limit. */
  memoryLimitMb?: number;
  /** The reason of a render that failed after its retries (docs/render.md "When a render fails"). */
  failed?: string | null;
}

/** The findings of one render, most severe first (a failed render's reason in `outcome`). */
export function runtimeFindings(
  obs: Observations,
  blank: boolean,
  seen: StaticView = { hosts: new Set(), hidesCode: false },
  outcome: RenderOutcome = {},
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
  // One finding per host, at the worst of its requests (flows.ts judges each).
  const byHost = new Map<
    string,
    { worst: FlowJudgement; count: number; types: Set<string>; first: string; queries: Set<string> }
  >();
  for (const r of obs.externalRequests) {
    const j = judgeRequest(r);
    const h = byHost.get(r.host);
    const query = r.method === 'GET' ? r.url.split('?')[1] : undefined;
    if (!h)
      byHost.set(r.host, {
        worst: j,
        count: 1,
        types: new Set([r.resourceType]),
        first: `${r.method} ${r.url}`,
        queries: new Set(query ? [query] : []),
      });
    else {
      h.count++;
      h.types.add(r.resourceType);
      if (query) h.queries.add(query);
      if (FLOW_ORDER.indexOf(j.rule) < FLOW_ORDER.indexOf(h.worst.rule)) {
        h.worst = j;
        h.first = `${r.method} ${r.url}`;
      }
    }
  }
  for (const l of obs.leaks) {
    const hidden = l.external && !SECRET_CANARIES.has(l.kind) ? hiddenSend(l, seen) : null;
    const values = {
      what: CANARY_KIND_LABELS[l.kind],
      field: l.field || CANARY_KIND_LABELS[l.kind],
      host: l.host,
      via: CANARY_VIA_LABELS[l.via] ?? l.via,
      encoding: CANARY_ENCODING_LABELS[l.encoding] ?? l.encoding,
      why: hidden ? m.canaryHiddenWhy[hidden] : '',
    };
    const id: RuntimeRuleId = !l.external
      ? 'runtime.canary-own'
      : SECRET_CANARIES.has(l.kind)
        ? 'runtime.canary-leak'
        : hidden
          ? 'runtime.canary-hidden'
          : 'runtime.canary-contact';
    add(id, values, l.url.slice(0, 160));
  }
  if (outcome.failed) add('runtime.render-failed', { reason: outcome.failed });
  else if (obs.loadTimedOut) add('runtime.load-timeout', { seconds: Math.round(obs.loadTimeoutMs / 1000) });
  if (outcome.memoryLimitMb !== undefined) add('runtime.memory', { limit: outcome.memoryLimitMb });
  for (const [host, h] of byHost) {
    // The same unknown host asked again and again with a new query each time: data sent in pieces.
    const loadsOnly =
      h.worst.rule === 'runtime.external-request' || h.worst.rule === 'runtime.external-asset';
    if (loadsOnly && h.queries.size >= SPLIT_SENDS) h.worst = { ...h.worst, rule: 'runtime.data-sent' };
    // Data sent where no file names the host, or by code the files hide: the send is hidden.
    const bare = host.replace(/:\d+$/, '');
    if (h.worst.rule === 'runtime.data-sent' && (!seen.hosts.has(bare) || seen.hidesCode))
      h.worst = { ...h.worst, rule: 'runtime.data-hidden' };
    const { rule: id, service, carries } = h.worst;
    add(
      id,
      {
        host,
        count: h.count,
        types: [...h.types].join('、'),
        service: service?.name ?? host,
        purpose: service ? PURPOSE_LABELS[service.purpose] : '',
        what: carries ? m.dataKinds[carries] : '',
      },
      h.first.slice(0, 160),
    );
  }
  const away = obs.navigations.filter((n) => n.external);
  const leftFor = new Set(away.filter((n) => !n.byVisitor).map((n) => n.host));
  for (const host of leftFor) add('runtime.navigation', { host });
  for (const host of new Set(away.filter((n) => n.byVisitor && !leftFor.has(n.host)).map((n) => n.host)))
    add('runtime.navigation-on-action', { host });
  for (const url of obs.downloads) add('runtime.download', { url: url.slice(0, 200) });
  for (const what of obs.permissions) add('runtime.permission', { what });
  for (const d of obs.dialogs) add('runtime.dialog', { type: d.type, message: d.message });
  if (blank) add('runtime.blank', {});
  // A file asked but missing is listed once: not again when the static check named it, nor the
  // site's root (a site without an entry page has its own finding), nor as a refused script.
  const missing = obs.missing.filter((path) => path !== '/' && !seen.missing?.has(path));
  const errors: string[] = [];
  for (const text of obs.consoleErrors) {
    const refused = refusedMissing(text);
    if (refused === null) errors.push(text);
    else if (refused !== '' && !namesOneOf(refused, [...obs.missing, ...(seen.missing ?? []), ...missing]))
      missing.push(refused);
  }
  // Chinese for the reviewer; Chromium's English original is the excerpt.
  for (const text of errors.slice(0, 5))
    add('runtime.console-error', describeScriptError(text), text.slice(0, 160));
  for (const url of missing) add('runtime.missing', { url });
  // Shown to the owner only while the project serves no SPA fallback (services/projects.ts).
  if (obs.historyRouting) add('runtime.history-routing', {});
  // With such a router a deep link (/users/42) asks ./assets/app.js as /users/assets/app.js.
  if (obs.historyRouting && seen.relativeAsset) add('runtime.relative-assets', { url: seen.relativeAsset });
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
  outcome: RenderOutcome = {},
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
  const found = runtimeFindings(obs, blank, staticViewOf(report), outcome);
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
    failed: outcome.failed ?? null,
    profiles: obs.profiles,
    risk_counts: riskCounts,
  };
  // Risk before usability, most severe first; within a severity what the page did comes first.
  const findings = [...found, ...staticFindings].sort(byImportance);
  const level = levelOf(counts);
  return {
    ...report,
    level,
    counts,
    reason: reasonOf({ level, counts, findings }),
    usability_problems: usabilityProblemsOf(findings),
    findings,
    usability_count: Math.max(0, staticUsability) + found.filter((f) => f.category === 'usability').length,
    runtime,
  };
}
