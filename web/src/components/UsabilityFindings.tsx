import './usability-findings.css';
import {
  CONTENT_CHECK_FIXES,
  CONTENT_CHECK_KIND_LABELS,
  type ContentFinding,
  format,
  messages,
  type USABILITY_KINDS,
} from '@sitehall/contracts';
import { Alert, Card, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';

const m = messages.review.contentCheck;

/** "index.html:12", or the whole site. */
export function findingLocation(finding: Pick<ContentFinding, 'file' | 'line'>): string {
  if (!finding.file) return '整个站点';
  return finding.line ? `${finding.file}:${finding.line}` : finding.file;
}

/**
 * How to fix a kind of finding; `{path}` is the site's real path (`/sites/foo/`), what a router's
 * build sets as its base where sites live under a path (docs/content-check.md "Where sites live").
 */
const fixOf = (kind: ContentFinding['kind'], sitePath: string | null): string | undefined => {
  const fix = CONTENT_CHECK_FIXES[kind as (typeof USABILITY_KINDS)[number]];
  return fix && format(fix, { path: sitePath ?? '/sites/站点名/' });
};

/** The path part of a site's address (`/sites/foo/`), or null when it is none under /sites/. */
export function sitePathOf(accessUrl: string | null | undefined): string | null {
  if (!accessUrl) return null;
  try {
    const path = new URL(accessUrl, 'http://x.invalid').pathname;
    return /^\/sites\/[^/]+\/$/.test(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * The usability findings of a version: what keeps the site from working as uploaded, each with
 * how to fix it. Shown to the uploader (project detail, right after the upload) and to reviewers.
 */
export function UsabilityFindingsList({
  findings,
  fixes = {},
  sitePath = null,
}: {
  findings: readonly ContentFinding[];
  /** The site's path under /sites/ (sitePathOf), for the fixes that name it. */
  sitePath?: string | null;
  /** A button that fixes a kind of finding at once (the owner's: 开启单页应用回退), by kind. */
  fixes?: Partial<Record<ContentFinding['kind'], ReactNode>>;
}) {
  // What a button fixes first, then what breaks (severity above info), then the notes.
  const rank = (f: ContentFinding) => (fixes[f.kind] ? 0 : f.severity === 'info' ? 2 : 1);
  return (
    <ul className="split-list split-list--small usability-findings">
      {[...findings]
        .sort((a, b) => rank(a) - rank(b))
        .map((finding, index) => (
          // A version's findings are fixed: their order is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: the list never changes in place
          <li key={index} className="split-list__item usability-findings__item">
            <div>
              <Tag>{CONTENT_CHECK_KIND_LABELS[finding.kind] ?? finding.kind}</Tag>
              <Typography.Text>{finding.message}</Typography.Text>
              <div>
                <Typography.Text type="secondary" code>
                  {findingLocation(finding)}
                </Typography.Text>
                {finding.excerpt && (
                  <Typography.Text type="secondary" className="usability-findings__excerpt" code>
                    {finding.excerpt}
                  </Typography.Text>
                )}
              </div>
              {fixOf(finding.kind, sitePath) && (
                <Typography.Text type="secondary" className="usability-findings__fix">
                  修改方法：{fixOf(finding.kind, sitePath)}
                </Typography.Text>
              )}
              {fixes[finding.kind] && <div className="usability-findings__action">{fixes[finding.kind]}</div>}
            </div>
          </li>
        ))}
    </ul>
  );
}

/** The uploader's card: shown only when the newest version has usability findings. */
export function UsabilityCard({
  findings,
  className,
  fixes,
  sitePath = null,
}: {
  findings?: readonly ContentFinding[];
  className?: string;
  sitePath?: string | null;
  fixes?: Partial<Record<ContentFinding['kind'], ReactNode>>;
}) {
  if (!findings || findings.length === 0) return null;
  // Only notes (severity info: the site works, a change makes it sturdier): a milder hint.
  const notesOnly = findings.every((f) => f.severity === 'info');
  return (
    <Card title={`${m.usabilityTitle}（${findings.length}）`} className={className}>
      <Alert
        type={notesOnly ? 'info' : 'warning'}
        showIcon
        title={notesOnly ? m.usabilityNotesHint : m.usabilityHint}
        className="usability-findings__hint"
      />
      <UsabilityFindingsList findings={findings} sitePath={sitePath} {...(fixes ? { fixes } : {})} />
    </Card>
  );
}
