import {
  CONTENT_CHECK_KIND_LABELS,
  CONTENT_CHECK_LEVEL_LABELS,
  type ContentCheckReport,
  type ContentCheckSeverity,
  type ContentFinding,
  formatBytes,
  messages,
} from '@sitehall/contracts';
import { Alert, Button, Card, Empty, Grid, Modal, Spin, Table, type TableProps, Tag, Typography } from 'antd';
import { useState } from 'react';
import { useAdminSource } from '../../../api/admin';
import { errorMessage } from '../../../api/client';
import {
  ContentCheckBadge,
  describeCounts,
  LEVEL_COLORS,
  SEVERITIES,
} from '../../../components/admin/ContentCheckBadge';
import { findingLocation, UsabilityFindingsList } from '../../../components/UsabilityFindings';
import { formatDateTime } from '../../../lib/format';

const m = messages.review.contentCheck;

const DOMAIN_GROUPS: Array<{ key: keyof ContentCheckReport['external_domains']; label: string }> = [
  { key: 'scripts', label: '外部脚本' },
  { key: 'stylesheets', label: '外部样式表' },
  { key: 'frames', label: '嵌入页面' },
  { key: 'forms', label: '表单提交' },
  { key: 'redirects', label: '页面跳转' },
  { key: 'script_hosts', label: '脚本中出现' },
];

const SEVERITY_RANK: Record<ContentCheckSeverity, number> = { high: 0, medium: 1, low: 2, info: 3 };

/** The lines around a finding, its own line marked; the excerpt stands in while they load or fail. */
function SourceLines({ projectId, finding }: { projectId: number; finding: ContentFinding }) {
  const where = findingLocation(finding);
  const source = useAdminSource(projectId, finding.file, finding.line);
  if (source.isSuccess) {
    const { first_line: first, lines } = source.data;
    return (
      <figure className="finding-excerpt-figure" aria-label={`${where} 文件内容`}>
        <pre className="finding-source">
          {lines.map((text, i) => {
            const number = first + i;
            const current = number === finding.line;
            return (
              <div
                key={number}
                className={
                  current ? 'finding-source__line finding-source__line--current' : 'finding-source__line'
                }
                ref={current ? (el) => el?.scrollIntoView?.({ block: 'center' }) : undefined}
              >
                <span className="finding-excerpt__line">{number}</span>
                <code>{text}</code>
              </div>
            );
          })}
        </pre>
        {source.data.truncated && (
          <Typography.Text type="secondary">文件较大，只显示了前 2 MB。</Typography.Text>
        )}
      </figure>
    );
  }
  return (
    <>
      {source.isPending ? (
        <Spin size="small" />
      ) : (
        <Alert type="warning" showIcon title={errorMessage(source.error)} />
      )}
      {finding.excerpt && (
        <figure className="finding-excerpt-figure" aria-label={`${where} 摘录`}>
          <pre className="finding-excerpt">
            <span className="finding-excerpt__line">{finding.line}</span>
            <code>{finding.excerpt}</code>
          </pre>
        </figure>
      )}
    </>
  );
}

/** A finding's location: opens the file at its line (the excerpt shows in the table already). */
function FindingLocation({ finding, projectId }: { finding: ContentFinding; projectId: number | null }) {
  const [open, setOpen] = useState(false);
  const where = findingLocation(finding);
  if (!finding.file || projectId === null) {
    return (
      <Typography.Text code className="finding-location" title={where}>
        {where}
      </Typography.Text>
    );
  }
  return (
    <>
      <Button
        type="link"
        size="small"
        className="finding-location"
        title={where}
        onClick={() => setOpen(true)}
      >
        {where}
      </Button>
      <Modal
        open={open}
        title={where}
        footer={null}
        onCancel={() => setOpen(false)}
        width={860}
        destroyOnHidden
      >
        <Typography.Paragraph type="secondary">{finding.message}</Typography.Paragraph>
        {open && <SourceLines projectId={projectId} finding={finding} />}
      </Modal>
    </>
  );
}

/** A finding's line as the check saw it, wrapped (never cut: it is what the reviewer reads). */
function FindingExcerpt({ finding }: { finding: ContentFinding }) {
  if (!finding.excerpt) return null;
  return <code className="finding-excerpt-inline">{finding.excerpt}</code>;
}

const severityColumn: NonNullable<TableProps<ContentFinding>['columns']>[number] = {
  title: '级别',
  dataIndex: 'severity',
  key: 'severity',
  width: 88,
  filters: SEVERITIES.map((s) => ({ text: CONTENT_CHECK_LEVEL_LABELS[s], value: s })),
  onFilter: (value, finding) => finding.severity === value,
  sorter: (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity],
  render: (severity: ContentCheckSeverity) => (
    <Tag color={LEVEL_COLORS[severity]}>{CONTENT_CHECK_LEVEL_LABELS[severity]}</Tag>
  ),
};

const kindLabel = (kind: ContentFinding['kind']) => CONTENT_CHECK_KIND_LABELS[kind] ?? kind;

/**
 * Wide: level, type, what and where, at fixed widths (the table lays out fixed, so a long address
 * in one message can't squeeze 类型 to a character a line). Narrow (a phone): level, and the rest
 * stacked in one cell.
 */
const columnsFor = (projectId: number | null, narrow: boolean): TableProps<ContentFinding>['columns'] =>
  narrow
    ? [
        severityColumn,
        {
          title: '说明',
          key: 'message',
          render: (_, finding) => (
            <div className="finding-stack">
              <Typography.Text strong className="finding-kind">
                {kindLabel(finding.kind)}
              </Typography.Text>
              <div className="finding-message">{finding.message}</div>
              <FindingLocation finding={finding} projectId={projectId} />
              <FindingExcerpt finding={finding} />
            </div>
          ),
        },
      ]
    : [
        severityColumn,
        {
          title: '类型',
          dataIndex: 'kind',
          key: 'kind',
          width: 128,
          render: (kind: ContentFinding['kind']) => <span className="finding-kind">{kindLabel(kind)}</span>,
        },
        {
          title: '说明',
          key: 'message',
          render: (_, finding) => (
            <div className="finding-stack">
              <div className="finding-message">{finding.message}</div>
              <FindingExcerpt finding={finding} />
            </div>
          ),
        },
        {
          title: '位置',
          key: 'location',
          width: 180,
          render: (_, finding) => <FindingLocation finding={finding} projectId={projectId} />,
        },
      ];

/** What the automatic check covers and what it does not: shown with a report without risk findings. */
export function CheckCoverage() {
  return (
    <div className="check-coverage">
      <Typography.Text strong>{m.coversTitle}</Typography.Text>
      <ul>
        {m.covers.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <Typography.Text strong>{m.notCoveredTitle}</Typography.Text>
      <ul>
        {m.notCovered.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </div>
  );
}

/** The hosts the page asked when it ran (the render's requests), sorted: they have findings too. */
function runtimeHosts(check: ContentCheckReport): string[] {
  const hosts = new Set<string>();
  for (const r of check.runtime?.external_requests ?? []) {
    try {
      hosts.add(new URL(r.url).host);
    } catch {
      // not a URL: nothing to name
    }
  }
  return [...hosts].sort();
}

/** Every other host the check saw: in the files (by what names it) and when the page ran. */
function ExternalDomains({ check }: { check: ContentCheckReport }) {
  const rows = [
    ...DOMAIN_GROUPS.map((g) => ({ key: g.key, label: g.label, hosts: check.external_domains[g.key] })),
    { key: 'runtime', label: '运行时请求', hosts: runtimeHosts(check) },
  ].filter((row) => row.hosts.length > 0);
  if (rows.length === 0) {
    return <Typography.Text type="secondary">文件中和页面运行时均未发现外部域名</Typography.Text>;
  }
  return (
    <dl className="check-domains">
      {rows.map((row) => (
        <div key={row.key} className="check-domains__row">
          <dt>{row.label}</dt>
          <dd>
            {row.hosts.map((domain) => (
              <Tag key={domain} className="check-domains__tag">
                {domain}
              </Tag>
            ))}
          </dd>
        </div>
      ))}
    </dl>
  );
}

interface ContentCheckCardProps {
  check: ContentCheckReport | null;
  /** The project, for opening a finding's file (null: locations are shown, not opened). */
  projectId?: number | null;
  /** The version the check describes. */
  version: number | null;
  /** The site's path under /sites/ (UsabilityFindings `sitePathOf`), for the fixes that name it. */
  sitePath?: string | null;
}

/** The automatic content check of the newest version: what a reviewer should look at first. */
export function ContentCheckCard({
  check,
  version,
  projectId = null,
  sitePath = null,
}: ContentCheckCardProps) {
  // Known once antd has asked the window (undefined on the first render): wide until then.
  const narrow = Grid.useBreakpoint().md === false;
  if (!check) {
    return (
      <Card title="内容检查" className="review-detail__card">
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无内容检查结果，请预览或下载后人工检查" />
      </Card>
    );
  }
  const counts = describeCounts(check.counts);
  const risks = check.findings.filter((f) => f.category !== 'usability');
  const usability = check.findings.filter((f) => f.category === 'usability');
  return (
    <Card
      title={
        <span className="review-detail__card-title">
          内容检查
          <ContentCheckBadge check={check} />
        </span>
      }
      extra={
        <Typography.Text type="secondary" className="review-detail__card-extra">
          {version !== null && `v${version} · `}检查于 {formatDateTime(check.checked_at)}
        </Typography.Text>
      }
      className="review-detail__card"
    >
      <Typography.Paragraph type="secondary" className="check-summary">
        共检查 {check.scanned_files} 个文本文件；
        {counts ? `风险：${counts}` : m.noKnownRisk}
        {check.usability_count > 0 && `；可用性问题 ${check.usability_count} 个`}
        {check.omitted_findings > 0 && `；另有 ${check.omitted_findings} 条同类问题未列出`}。
      </Typography.Paragraph>
      {check.level !== 'clean' && (
        <Alert
          type={check.level === 'high' ? 'error' : check.level === 'medium' ? 'warning' : 'info'}
          showIcon
          className="check-reason"
          title={check.reason}
        />
      )}
      {check.partially_scanned_files.length > 0 && (
        <Alert
          type="info"
          showIcon
          className="check-partial"
          title={`${check.partially_scanned_files.length} 个文件过大或超时，只检查了一部分`}
          description={check.partially_scanned_files.join('、')}
        />
      )}
      {risks.length > 0 ? (
        <Table<ContentFinding>
          rowKey={(finding) =>
            `${finding.severity}|${finding.kind}|${finding.file}|${finding.line}|${finding.message}`
          }
          columns={columnsFor(projectId, narrow)}
          dataSource={risks}
          size="small"
          tableLayout="fixed"
          pagination={risks.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
          className="check-findings"
        />
      ) : (
        <Alert
          type="info"
          showIcon
          title={m.noKnownRisk}
          description={
            <>
              <Typography.Paragraph>{m.noKnownRiskHint}</Typography.Paragraph>
              <CheckCoverage />
            </>
          }
          className="check-clean"
        />
      )}
      {usability.length > 0 && (
        <section className="check-usability">
          <Typography.Title level={5}>
            {m.usabilityTitle}（{check.usability_count}）
          </Typography.Title>
          <UsabilityFindingsList findings={usability} sitePath={sitePath} />
        </section>
      )}
      <div className="check-sections">
        <section>
          <Typography.Title level={5}>外部域名</Typography.Title>
          <ExternalDomains check={check} />
        </section>
        <section>
          <Typography.Title level={5}>最大的文件</Typography.Title>
          {check.largest_files.length === 0 ? (
            <Typography.Text type="secondary">无</Typography.Text>
          ) : (
            <ol className="check-largest">
              {check.largest_files.map((file) => (
                <li key={file.file}>
                  <Typography.Text className="check-largest__name" ellipsis={{ tooltip: file.file }}>
                    {file.file}
                  </Typography.Text>
                  <span className="check-largest__size">{formatBytes(file.size)}</span>
                </li>
              ))}
            </ol>
          )}
        </section>
      </div>
    </Card>
  );
}
