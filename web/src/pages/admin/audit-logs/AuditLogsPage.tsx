import { SearchOutlined } from '@ant-design/icons';
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_ACTION_KEYS,
  AUDIT_ACTIONS,
  AUDIT_TARGETS,
  type AuditActionGroup,
  type AuditLogDto,
  type AuditLogQuery,
  auditActionOf,
  isAuditAction,
  messages,
} from '@sitehall/contracts';
import {
  Button,
  Card,
  DatePicker,
  Form,
  Input,
  Select,
  Space,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import dayjs from 'dayjs';
import 'dayjs/locale/zh-cn';
import { useEffect, useRef } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useAuditLogs } from '../../../api/admin';
import { PagedTable } from '../../../components/admin/PagedTable';
import { useReturnState } from '../../../components/admin/returnTo';
import { PageHeader } from '../../../components/PageHeader';
import { formatDateTime } from '../../../lib/format';
import { describeAuditDetail } from './auditDetail';
import './audit-logs.css';

// The calendar's month and weekday names come from dayjs, not antd's locale: Chinese, weeks from
// Monday (the only date picker of the app, so loaded here, not on every page).
dayjs.locale('zh-cn');

const PAGE_SIZES = [20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;

/** Each group's colour; a failure or removal is red, a review's success green. */
const GROUP_COLORS: Record<AuditActionGroup, string> = {
  auth: 'blue',
  user: 'purple',
  project: 'cyan',
  review: 'orange',
  token: 'geekblue',
  config: 'gold',
};
const TONE_COLORS = { danger: 'red', success: 'green' } as const;
const GROUPS = Object.keys(AUDIT_ACTION_GROUPS) as AuditActionGroup[];

function actionColor(action: string): string {
  if (isAuditAction(action)) {
    const { tone } = auditActionOf(action);
    if (tone) return TONE_COLORS[tone];
  }
  const group = GROUPS.find((g) => action.startsWith(`${g}.`));
  return group ? GROUP_COLORS[group] : 'default';
}

const actionOptions = GROUPS.map((group) => ({
  label: AUDIT_ACTION_GROUPS[group],
  title: AUDIT_ACTION_GROUPS[group],
  options: [
    { value: group, label: `全部${AUDIT_ACTION_GROUPS[group]}操作` },
    ...AUDIT_ACTION_KEYS.filter((action) => action.startsWith(`${group}.`)).map((action) => ({
      value: action,
      label: AUDIT_ACTIONS[action].label,
    })),
  ],
}));

/** What a date picker hands back: a day that knows its start and end. */
interface PickedDay {
  startOf(unit: 'day'): { toISOString(): string };
  endOf(unit: 'day'): { toISOString(): string };
}

interface FilterValues {
  actor?: string;
  action?: string;
  target_type?: string;
  target_id?: string;
  ip?: string;
  range?: [PickedDay | null, PickedDay | null] | null;
}

type Filters = Omit<AuditLogQuery, 'page' | 'page_size'>;
const FILTER_KEYS = ['actor', 'action', 'target_type', 'target_id', 'ip', 'from', 'to'] as const;

/**
 * The view (filters, page, page size) lives in the address, as on the other admin lists: reload,
 * back and a shared link show the same records; the review page links here with its project.
 */
function viewFromAddress(params: URLSearchParams) {
  const filters: Filters = {};
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim();
    if (value) filters[key] = value;
  }
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '', 10) || 1);
  const size = Number.parseInt(params.get('page_size') ?? '', 10);
  return { filters, page, pageSize: PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE };
}

function addressOf(filters: Filters, page: number, pageSize: number): URLSearchParams {
  const out = new URLSearchParams();
  for (const key of FILTER_KEYS) {
    const value = filters[key];
    if (value) out.set(key, value);
  }
  if (page > 1) out.set('page', String(page));
  if (pageSize !== DEFAULT_PAGE_SIZE) out.set('page_size', String(pageSize));
  return out;
}

/** The filter form's values for the address's filters (the days of the instants, here). */
function formValuesOf(filters: Filters): FilterValues {
  const day = (instant: string | undefined) => {
    const value = instant ? dayjs(instant) : null;
    return value?.isValid() ? value : null;
  };
  const from = day(filters.from);
  const to = day(filters.to);
  return {
    actor: filters.actor,
    action: filters.action,
    target_type: filters.target_type,
    target_id: filters.target_id,
    ip: filters.ip,
    range: from || to ? [from, to] : null,
  };
}

function toFilters(values: FilterValues): Filters {
  const filters: Filters = {};
  for (const key of ['actor', 'action', 'target_type', 'target_id', 'ip'] as const) {
    const value = values[key]?.trim();
    if (value) filters[key] = value;
  }
  const [from, to] = values.range ?? [];
  // Whole days in the viewer's time zone, sent as instants.
  if (from) filters.from = from.startOf('day').toISOString();
  if (to) filters.to = to.endOf('day').toISOString();
  return filters;
}

function Target({ log }: { log: AuditLogDto }) {
  const back = useReturnState();
  if (!log.target_type) return <Typography.Text type="secondary">—</Typography.Text>;
  const label = Object.hasOwn(AUDIT_TARGETS, log.target_type)
    ? AUDIT_TARGETS[log.target_type as keyof typeof AUDIT_TARGETS]
    : log.target_type;
  if (!log.target_id) return <span>{label}</span>;
  // By name where the server knows it (the id stays in the tooltip); by id otherwise.
  const byId = `${label} #${log.target_id}`;
  const text = log.target_name ? `${label} ${log.target_name}` : byId;
  // A project or user deleted since is named, not linked: its page is gone.
  if (log.target_gone) return <span title={byId}>{`${text}（已删除）`}</span>;
  if (log.target_type === 'project' && log.action !== 'project.delete') {
    return (
      <Link to={`/admin/reviews/${log.target_id}`} state={back} title={byId}>
        {text}
      </Link>
    );
  }
  return <span title={byId}>{text}</span>;
}

const columns: TableProps<AuditLogDto>['columns'] = [
  {
    title: '时间',
    dataIndex: 'created_at',
    key: 'time',
    width: 160,
    render: (value: string) => <span className="audit-time">{formatDateTime(value)}</span>,
  },
  {
    title: '操作者',
    key: 'actor',
    width: 130,
    render: (_, log) =>
      log.actor ? (
        <span className="audit-actor">{log.actor.username}</span>
      ) : (
        <Typography.Text type="secondary">系统 / 未登录</Typography.Text>
      ),
  },
  {
    title: '操作',
    key: 'action',
    width: 150,
    render: (_, log) => (
      <Tooltip title={log.action}>
        <Tag color={actionColor(log.action)}>{log.action_label}</Tag>
      </Tooltip>
    ),
  },
  { title: '对象', key: 'target', width: 160, render: (_, log) => <Target log={log} /> },
  {
    title: 'IP',
    dataIndex: 'ip',
    key: 'ip',
    width: 140,
    render: (ip: string | null) => (ip ? <Typography.Text code>{ip}</Typography.Text> : '—'),
  },
  {
    title: '详情',
    key: 'detail',
    render: (_, log) => {
      const text = describeAuditDetail(log.detail);
      return text ? (
        <Typography.Paragraph
          className="audit-detail"
          ellipsis={{ rows: 2, expandable: true, symbol: '展开' }}
        >
          {text}
        </Typography.Paragraph>
      ) : (
        <Typography.Text type="secondary">—</Typography.Text>
      );
    },
  },
];

export function AuditLogsPage() {
  const [params, setParams] = useSearchParams();
  const [form] = Form.useForm<FilterValues>();
  const current = useRef(params);
  current.current = params;
  const { filters, page, pageSize } = viewFromAddress(params);
  const query: AuditLogQuery = { ...filters, page, page_size: pageSize };
  const logs = useAuditLogs(query);
  const filtered = Object.keys(filters).length > 0;

  // The form shows what the address filters by, also when a link changes it while here.
  const address = params.toString();
  useEffect(() => {
    form.setFieldsValue(formValuesOf(viewFromAddress(new URLSearchParams(address)).filters));
  }, [address, form]);

  const show = (next: Filters, nextPage: number, nextPageSize = pageSize) =>
    setParams(addressOf(next, nextPage, nextPageSize));
  const apply = (values: FilterValues) => show(toFilters(values), 1);
  const reset = () => {
    form.setFieldsValue(formValuesOf({}));
    show({}, 1);
  };

  return (
    <>
      <PageHeader
        title="审计日志"
        description="登录、账号管理、项目上传与删除、审核决定和设置修改的记录：谁在什么时间从哪里做了什么。"
      />
      <Card className="audit-filters">
        <Form<FilterValues>
          form={form}
          layout="inline"
          onFinish={apply}
          initialValues={formValuesOf(filters)}
          className="audit-filters__form"
        >
          <Form.Item name="actor" label="操作者">
            <Input allowClear placeholder="用户名" maxLength={64} className="audit-filters__input" />
          </Form.Item>
          <Form.Item name="action" label="操作">
            <Select
              allowClear
              showSearch={{ optionFilterProp: 'label' }}
              placeholder="全部操作"
              options={actionOptions}
              className="audit-filters__select"
              popupMatchSelectWidth={false}
            />
          </Form.Item>
          <Form.Item name="target_type" label="对象类型">
            <Select
              allowClear
              placeholder="全部"
              options={Object.entries(AUDIT_TARGETS).map(([value, label]) => ({ value, label }))}
              className="audit-filters__type"
            />
          </Form.Item>
          <Form.Item name="target_id" label="对象ID">
            <Input allowClear placeholder="如 12" maxLength={64} className="audit-filters__id" />
          </Form.Item>
          <Form.Item name="ip" label="IP">
            <Input allowClear placeholder="IP 地址" maxLength={64} className="audit-filters__input" />
          </Form.Item>
          <Form.Item name="range" label="时间">
            {/* On a phone the field takes the card's width and its popup shows one month (audit-logs.css):
                two side by side stuck out of a 390-pixel screen. */}
            <DatePicker.RangePicker
              allowEmpty={[true, true]}
              className="audit-filters__range"
              classNames={{ popup: { root: 'audit-range-popup' } }}
            />
          </Form.Item>
          <Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" icon={<SearchOutlined aria-hidden />}>
                查询
              </Button>
              <Button onClick={reset}>重置</Button>
            </Space>
          </Form.Item>
        </Form>
      </Card>

      <Card>
        <PagedTable<AuditLogDto>
          query={logs}
          rows={logs.data?.logs ?? []}
          size="middle"
          columns={columns}
          // A phone shows each record as a card (its columns scrolled sideways at 390 px).
          scroll={{ x: 1000 }}
          stackOnPhone
          failedTitle={messages.review.adminDataFailed}
          paging={{
            page,
            pageSize,
            pageSizes: PAGE_SIZES,
            total: logs.data?.pagination.total_count ?? 0,
            summary: (count) => `共 ${count} 条记录`,
            // The filters of the address as it is now: the table may call a handler it kept from
            // an earlier render.
            onChange: (nextPage, nextPageSize) =>
              show(viewFromAddress(current.current).filters, nextPage, nextPageSize),
          }}
          emptyText={filtered ? '没有符合条件的记录' : '暂无审计记录'}
        />
      </Card>
    </>
  );
}
