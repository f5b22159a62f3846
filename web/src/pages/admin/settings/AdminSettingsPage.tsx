import { SaveOutlined, UndoOutlined } from '@ant-design/icons';
import {
  type AdminConfigBody,
  type AdminConfigDto,
  CONFIG_BOUNDS,
  EXTENSION_PATTERN,
  FORBIDDEN_EXTENSIONS,
  format,
  KNOWN_EXTENSIONS,
  MB,
  messages,
  UNKNOWN_FILE_TYPE_MODES,
  type UnknownFileTypeMode,
} from '@sitehall/contracts';
import {
  Alert,
  App,
  Button,
  Card,
  Checkbox,
  Col,
  Form,
  type FormRule,
  InputNumber,
  Popconfirm,
  Radio,
  Row,
  Select,
  Skeleton,
  Space,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useAdminConfig, useSaveAdminConfig } from '../../../api/admin';
import { toApiError } from '../../../api/client';
import { LoadFailed } from '../../../components/admin/LoadFailed';
import { PageHeader } from '../../../components/PageHeader';
import { useLeaveGuard } from '../../../hooks/useLeaveGuard';
import { applyFieldErrors } from '../../../lib/form';
import { extensionGroups } from './extensionGroups';
import './settings.css';

const m = messages.review;

/** The form holds the settings in the units people think in: MB, GB and minutes. */
interface SettingsForm {
  max_files_per_upload: number;
  max_file_bytes: number;
  max_upload_bytes: number;
  max_archive_entries: number;
  max_archive_uncompressed_bytes: number;
  /** The checked known types. */
  allowed_extensions: string[];
  /** Allowed types an admin typed in (any well-formed extension but the forbidden ones). */
  extra_extensions: string[];
  unknown_file_types: UnknownFileTypeMode;
  preview_ttl_seconds: number;
  max_user_storage_bytes: number;
  max_uploads_per_hour: number;
}

const FIELD_NAMES = [
  'max_files_per_upload',
  'max_file_bytes',
  'max_upload_bytes',
  'max_archive_entries',
  'max_archive_uncompressed_bytes',
  'allowed_extensions',
  'unknown_file_types',
  'preview_ttl_seconds',
  'max_user_storage_bytes',
  'max_uploads_per_hour',
] as const;

type ByteField = 'max_file_bytes' | 'max_upload_bytes' | 'max_archive_uncompressed_bytes';
type CountField = 'max_files_per_upload' | 'max_archive_entries';

const LABELS: Record<(typeof FIELD_NAMES)[number], string> = {
  max_files_per_upload: '单次上传文件数上限',
  max_file_bytes: '单个文件大小上限',
  max_upload_bytes: '单次上传总大小上限',
  max_archive_entries: '压缩包条目数上限',
  max_archive_uncompressed_bytes: '压缩包解压后总大小上限',
  allowed_extensions: '允许的文件类型',
  unknown_file_types: '其他类型的文件',
  preview_ttl_seconds: '预览链接有效期',
  max_user_storage_bytes: '每个用户的存储空间',
  max_uploads_per_hour: '每个用户每小时上传次数',
};

const mbOf = (bytes: number) => Math.round((bytes / MB) * 100) / 100;
const bytesOf = (mb: number) => Math.round(mb * MB);
const GB = 1024 * MB;
const gbOf = (bytes: number) => Math.round((bytes / GB) * 100) / 100;
const bytesOfGb = (gb: number) => Math.round(gb * GB);

export function toForm(config: AdminConfigDto): SettingsForm {
  return {
    ...config,
    max_file_bytes: mbOf(config.max_file_bytes),
    max_upload_bytes: mbOf(config.max_upload_bytes),
    max_archive_uncompressed_bytes: mbOf(config.max_archive_uncompressed_bytes),
    preview_ttl_seconds: Math.round(config.preview_ttl_seconds / 60),
    max_user_storage_bytes: gbOf(config.max_user_storage_bytes),
    allowed_extensions: config.allowed_extensions.filter((e) => KNOWN_EXTENSIONS.includes(e)),
    extra_extensions: config.allowed_extensions.filter((e) => !KNOWN_EXTENSIONS.includes(e)),
  };
}

/** '.SCSS ' → 'scss', as the server normalises a typed extension. */
const normalExtension = (typed: string) => typed.trim().toLowerCase().replace(/^\./, '');

/** Each typed extension well-formed and none of the forbidden ones, with the server's words. */
const extraExtensionsRule: FormRule = {
  validator: async (_rule, value: string[] | undefined) => {
    for (const ext of (value ?? []).map(normalExtension)) {
      if (!EXTENSION_PATTERN.test(ext)) throw new Error(format(m.configExtensionInvalid, { ext }));
      if (FORBIDDEN_EXTENSIONS.includes(ext)) throw new Error(format(m.configExtensionUnknown, { ext }));
    }
  },
};

/**
 * The form's values in the API's units. GB are shown to two decimals, so a quota that is not a
 * whole hundredth of a GB (set through the API) comes back as it was unless it was edited.
 */
export function fromForm(values: SettingsForm, current?: AdminConfigDto): AdminConfigBody {
  const storage =
    current && gbOf(current.max_user_storage_bytes) === values.max_user_storage_bytes
      ? current.max_user_storage_bytes
      : bytesOfGb(values.max_user_storage_bytes);
  return {
    max_files_per_upload: values.max_files_per_upload,
    max_file_bytes: bytesOf(values.max_file_bytes),
    max_upload_bytes: bytesOf(values.max_upload_bytes),
    max_archive_entries: values.max_archive_entries,
    max_archive_uncompressed_bytes: bytesOf(values.max_archive_uncompressed_bytes),
    allowed_extensions: [
      ...new Set([...values.allowed_extensions, ...(values.extra_extensions ?? []).map(normalExtension)]),
    ],
    unknown_file_types: values.unknown_file_types,
    preview_ttl_seconds: values.preview_ttl_seconds * 60,
    max_user_storage_bytes: storage,
    max_uploads_per_hour: values.max_uploads_per_hour,
  };
}

/** A whole number inside the setting's bounds, checked in the unit the form shows. */
function countRule(field: CountField): FormRule {
  const { min, max } = CONFIG_BOUNDS[field];
  const message = `${LABELS[field]}必须是 ${min} 到 ${max} 之间的整数`;
  return { required: true, type: 'integer', min, max, message };
}

function megabyteRule(field: ByteField): FormRule {
  const { min, max } = CONFIG_BOUNDS[field];
  const low = Math.max(0.01, mbOf(min));
  const high = mbOf(max);
  const message = `${LABELS[field]}必须在 ${low} MB 到 ${high} MB 之间`;
  return {
    validator: async (_rule, value: number | null | undefined) => {
      if (value === null || value === undefined) throw new Error(message);
      const bytes = bytesOf(value);
      if (bytes < min || bytes > max) throw new Error(message);
    },
  };
}

const minutesRule: FormRule = (() => {
  const min = CONFIG_BOUNDS.preview_ttl_seconds.min / 60;
  const max = CONFIG_BOUNDS.preview_ttl_seconds.max / 60;
  return {
    required: true,
    type: 'integer',
    min,
    max,
    message: `${LABELS.preview_ttl_seconds}必须是 ${min} 到 ${max} 分钟之间的整数`,
  };
})();

const gigabyteRule: FormRule = (() => {
  const { min, max } = CONFIG_BOUNDS.max_user_storage_bytes;
  const message = `${LABELS.max_user_storage_bytes}必须在 ${gbOf(min)} GB 到 ${gbOf(max)} GB 之间`;
  return {
    validator: async (_rule, value: number | null | undefined) => {
      if (value === null || value === undefined) throw new Error(message);
      const bytes = bytesOfGb(value);
      if (bytes < min || bytes > max) throw new Error(message);
    },
  };
})();

const uploadsPerHourRule: FormRule = (() => {
  const { min, max } = CONFIG_BOUNDS.max_uploads_per_hour;
  const message = `${LABELS.max_uploads_per_hour}必须是 ${min} 到 ${max} 之间的整数（0 表示不限）`;
  return { required: true, type: 'integer', min, max, message };
})();

/** Help under a field: its default, so an admin sees how far they moved from it. */
function defaultHint(text: string) {
  return <span className="settings-hint">默认：{text}</span>;
}

/** A limit counted in items (files, archive entries). */
function CountSetting({ field, defaults }: { field: CountField; defaults: AdminConfigDto }) {
  return (
    <Col xs={24} md={12}>
      <Form.Item
        name={field}
        label={LABELS[field]}
        rules={[countRule(field)]}
        extra={defaultHint(`${defaults[field]} 个`)}
      >
        <InputNumber className="settings-number" controls={false} precision={0} suffix="个" />
      </Form.Item>
    </Col>
  );
}

/** A size limit, shown and typed in MB, stored in bytes. */
function MegabyteSetting({
  field,
  defaults,
  step = 1,
  rules = [],
  dependencies,
}: {
  field: ByteField;
  defaults: AdminConfigDto;
  step?: number;
  rules?: FormRule[];
  dependencies?: ByteField[];
}) {
  return (
    <Col xs={24} md={12}>
      <Form.Item
        name={field}
        label={LABELS[field]}
        dependencies={dependencies}
        rules={[megabyteRule(field), ...rules]}
        extra={defaultHint(`${mbOf(defaults[field])} MB`)}
      >
        <InputNumber className="settings-number" controls={false} precision={2} step={step} suffix="MB" />
      </Form.Item>
    </Col>
  );
}

/** A single file may not be larger than a whole upload. */
const fileWithinUploadRule: FormRule = ({ getFieldValue }) => ({
  validator: async (_rule, value: number | null) => {
    const total = getFieldValue('max_upload_bytes') as number | null;
    if (value !== null && total !== null && value > total) throw new Error(m.configFileOverUpload);
  },
});

export function AdminSettingsPage() {
  const { message } = App.useApp();
  const config = useAdminConfig();
  const save = useSaveAdminConfig();
  const [form] = Form.useForm<SettingsForm>();
  const [dirty, setDirty] = useState(false);
  useLeaveGuard(dirty, {
    title: '放弃未保存的修改？',
    content: '设置有未保存的修改，离开本页后这些修改将丢失。',
  });

  const current = config.data?.config;
  useEffect(() => {
    if (current) {
      form.setFieldsValue(toForm(current));
      setDirty(false);
    }
  }, [current, form]);

  if (config.isError && !config.data) {
    return (
      <>
        <PageHeader title="系统设置" />
        <Card>
          <LoadFailed
            title={messages.review.adminDataFailed}
            error={config.error}
            onRetry={() => config.refetch()}
          />
        </Card>
      </>
    );
  }

  if (config.isPending) {
    return (
      <>
        <PageHeader title="系统设置" />
        <Card>
          <Skeleton active paragraph={{ rows: 10 }} />
        </Card>
      </>
    );
  }

  const { defaults, known_extensions: known, sites_origin: sitesOrigin } = config.data;
  const groups = extensionGroups(known);

  const submit = async (values: SettingsForm) => {
    try {
      const saved = await save.mutateAsync(fromForm(values, current));
      form.setFieldsValue(toForm(saved.config));
      setDirty(false);
      message.success(m.configSaved);
    } catch (error) {
      const apiError = toApiError(error);
      const onFields = applyFieldErrors(form, apiError, FIELD_NAMES);
      message.error(onFields ? `${m.configInvalid}：请检查标出的设置` : apiError.message);
    }
  };

  const setExtensions = (extensions: readonly string[]) => {
    form.setFieldsValue({ allowed_extensions: extensions.filter((e) => known.includes(e)) });
    setDirty(true);
  };

  const fillDefaults = () => {
    form.setFieldsValue(toForm(defaults));
    form.setFields(FIELD_NAMES.map((name) => ({ name, errors: [] })));
    setDirty(true);
    message.info('已填入默认值，点击“保存设置”后生效');
  };

  const undo = () => {
    if (current) form.setFieldsValue(toForm(current));
    form.setFields(FIELD_NAMES.map((name) => ({ name, errors: [] })));
    setDirty(false);
  };

  return (
    <>
      <PageHeader
        title="系统设置"
        description="上传限制、允许的文件类型、用户配额与预览有效期。保存后立即对新的上传和预览生效，上传页面的提示会同步更新。"
      />
      <Form<SettingsForm>
        form={form}
        layout="vertical"
        initialValues={current ? toForm(current) : undefined}
        onFinish={submit}
        onValuesChange={() => setDirty(true)}
        requiredMark={false}
        className="settings-form"
        scrollToFirstError
      >
        <Card title="上传限制" className="settings-card">
          <Row gutter={24}>
            <CountSetting field="max_files_per_upload" defaults={defaults} />
            <MegabyteSetting
              field="max_file_bytes"
              defaults={defaults}
              dependencies={['max_upload_bytes']}
              rules={[fileWithinUploadRule]}
            />
            <MegabyteSetting field="max_upload_bytes" defaults={defaults} />
            <CountSetting field="max_archive_entries" defaults={defaults} />
            <MegabyteSetting field="max_archive_uncompressed_bytes" defaults={defaults} step={10} />
          </Row>
        </Card>

        <Card
          title="允许的文件类型"
          className="settings-card"
          extra={
            <Space size={4}>
              <Button size="small" type="link" onClick={() => setExtensions(known)}>
                全选
              </Button>
              <Button size="small" type="link" onClick={() => setExtensions(defaults.allowed_extensions)}>
                恢复默认类型
              </Button>
            </Space>
          }
        >
          <Typography.Paragraph type="secondary" className="settings-card__lead">
            允许的类型作为网页内容提供。同一份列表同时适用于直接上传的文件和压缩包内的文件。可执行文件、安装程序和服务器端脚本始终不能上传。
          </Typography.Paragraph>
          <Form.Item
            name="allowed_extensions"
            rules={[{ required: true, type: 'array', min: 1, message: m.configExtensionsRequired }]}
          >
            <Checkbox.Group className="settings-extensions" aria-label={LABELS.allowed_extensions}>
              {groups.map((group) => (
                <fieldset key={group.label} className="settings-extensions__group">
                  <legend>{group.label}</legend>
                  <div className="settings-extensions__items">
                    {group.extensions.map((ext) => (
                      <Checkbox key={ext} value={ext}>
                        .{ext}
                      </Checkbox>
                    ))}
                  </div>
                </fieldset>
              ))}
            </Checkbox.Group>
          </Form.Item>
          <Form.Item
            name="extra_extensions"
            label="其他允许的扩展名"
            rules={[extraExtensionsRule]}
            extra="输入扩展名后按回车，例如 scss、yml。"
          >
            <Select
              mode="tags"
              open={false}
              suffixIcon={null}
              tokenSeparators={[',', ' ', '，']}
              placeholder="例如 scss"
              aria-label="其他允许的扩展名"
            />
          </Form.Item>
          <Form.Item
            name="unknown_file_types"
            label={LABELS.unknown_file_types}
            extra="不在允许列表中、也不是可执行文件的文件（如 LICENSE、.scss 源码、.gz）。仅供下载的文件以附件方式提供，页面的脚本仍可读取。"
          >
            <Radio.Group aria-label={LABELS.unknown_file_types}>
              {UNKNOWN_FILE_TYPE_MODES.map((mode) => (
                <Radio key={mode} value={mode}>
                  {m.unknownFileTypeLabels[mode]}
                </Radio>
              ))}
            </Radio.Group>
          </Form.Item>
        </Card>

        <Card title="用户配额" className="settings-card">
          <Typography.Paragraph type="secondary" className="settings-card__lead">
            存储空间按每个用户所有项目的全部版本（含待审核、已拒绝和被替换的版本）计算；可在“用户管理”中为单个用户设置不同的配额。管理员上传不受每小时次数限制。
          </Typography.Paragraph>
          <Row gutter={24}>
            <Col xs={24} md={12}>
              <Form.Item
                name="max_user_storage_bytes"
                label={LABELS.max_user_storage_bytes}
                rules={[gigabyteRule]}
                extra={defaultHint(`${gbOf(defaults.max_user_storage_bytes)} GB`)}
              >
                <InputNumber className="settings-number" controls={false} precision={2} suffix="GB" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <Form.Item
                name="max_uploads_per_hour"
                label={LABELS.max_uploads_per_hour}
                rules={[uploadsPerHourRule]}
                extra={defaultHint(`${defaults.max_uploads_per_hour} 次，0 表示不限`)}
              >
                <InputNumber className="settings-number" controls={false} precision={0} suffix="次" />
              </Form.Item>
            </Col>
          </Row>
        </Card>

        <Card title="预览与站点" className="settings-card">
          <Row gutter={24}>
            <Col xs={24} md={12}>
              <Form.Item
                name="preview_ttl_seconds"
                label={LABELS.preview_ttl_seconds}
                rules={[minutesRule]}
                extra={defaultHint(`${Math.round(defaults.preview_ttl_seconds / 60)} 分钟`)}
              >
                <InputNumber className="settings-number" controls={false} precision={0} suffix="分钟" />
              </Form.Item>
            </Col>
            <Col xs={24} md={12}>
              <div className="settings-origin">
                <Typography.Text type="secondary">站点访问方式</Typography.Text>
                {sitesOrigin ? (
                  <Alert
                    type="success"
                    showIcon
                    title={`独立域名：${sitesOrigin}`}
                    description="站点与平台分属不同域名，彼此隔离。"
                  />
                ) : (
                  <Alert
                    type="info"
                    showIcon
                    title="与平台同域名，沙箱隔离"
                    description="站点在 /sites/ 下以沙箱方式运行，无法读取平台的登录信息。可通过环境变量 SITES_ORIGIN 配置独立域名。"
                  />
                )}
              </div>
            </Col>
          </Row>
        </Card>

        <div className="settings-actions">
          <Typography.Text type={dirty ? 'warning' : 'secondary'} className="settings-actions__state">
            {dirty ? '有未保存的修改' : '所有设置已保存'}
          </Typography.Text>
          <Space wrap>
            <Popconfirm
              title="恢复默认值"
              description="将所有设置填为默认值，保存后生效。"
              okText="填入默认值"
              cancelText="取消"
              onConfirm={fillDefaults}
            >
              <Button icon={<UndoOutlined aria-hidden />}>恢复默认值</Button>
            </Popconfirm>
            <Button onClick={undo} disabled={!dirty}>
              撤销修改
            </Button>
            <Button
              type="primary"
              htmlType="submit"
              icon={<SaveOutlined aria-hidden />}
              loading={save.isPending}
            >
              保存设置
            </Button>
          </Space>
        </div>
      </Form>
    </>
  );
}
