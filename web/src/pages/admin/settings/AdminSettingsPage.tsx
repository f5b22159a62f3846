import { SaveOutlined, UndoOutlined } from '@ant-design/icons';
import {
  type AdminConfigBody,
  type AdminConfigDto,
  EXTENSION_PATTERN,
  FORBIDDEN_EXTENSIONS,
  format,
  type IntegerSetting,
  KNOWN_EXTENSIONS,
  MB,
  messages,
  SETTING_GROUPS,
  SETTING_KEYS,
  SETTINGS,
  type SettingGroup,
  type SettingKeyOf,
  type SiteIsolation,
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
const unknownTypes = SETTINGS.unknown_file_types;

/** The form holds the settings in the units people think in (MB, GB, minutes), plus typed extensions. */
type SettingsForm = AdminConfigDto & {
  /** Allowed types an admin typed in (any well-formed extension but the forbidden ones). */
  extra_extensions: string[];
};

type NumberKey = SettingKeyOf<'integer'>;
const NUMBER_KEYS = SETTING_KEYS.filter((key): key is NumberKey => SETTINGS[key].type === 'integer');

const GB = 1024 * MB;
/** Stored units per shown unit; counts are shown as they are. */
const SCALE: Record<IntegerSetting['shownAs'], number> = { MB, GB, minutes: 60, 个: 1, 次: 1 };
const scaled = (d: IntegerSetting) => d.shownAs === 'MB' || d.shownAs === 'GB';
/** MB and GB are shown to two decimals, minutes and counts as whole numbers. */
const shown = (d: IntegerSetting, stored: number) =>
  scaled(d) ? Math.round((stored / SCALE[d.shownAs]) * 100) / 100 : Math.round(stored / SCALE[d.shownAs]);
const storedOf = (d: IntegerSetting, value: number) => Math.round(value * SCALE[d.shownAs]);

export function toForm(config: AdminConfigDto): SettingsForm {
  const form: SettingsForm = {
    ...config,
    allowed_extensions: config.allowed_extensions.filter((e) => KNOWN_EXTENSIONS.includes(e)),
    extra_extensions: config.allowed_extensions.filter((e) => !KNOWN_EXTENSIONS.includes(e)),
  };
  for (const key of NUMBER_KEYS) form[key] = shown(SETTINGS[key], config[key]);
  return form;
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
 * The form's values in the API's units. MB and GB are shown to two decimals, so a size that is
 * not a whole hundredth (set through the API) comes back as it was unless it was edited.
 */
export function fromForm(values: SettingsForm, current?: AdminConfigDto): AdminConfigBody {
  const { extra_extensions: extra, ...config } = values;
  const body: AdminConfigDto = {
    ...config,
    allowed_extensions: [...new Set([...values.allowed_extensions, ...(extra ?? []).map(normalExtension)])],
  };
  for (const key of NUMBER_KEYS) {
    const d = SETTINGS[key];
    const untouched = current !== undefined && shown(d, current[key]) === values[key];
    body[key] = untouched && scaled(d) ? current[key] : storedOf(d, values[key]);
  }
  return body;
}

/** A number inside the setting's bounds, checked in the unit the form shows, in the form's words. */
function numberRule(d: IntegerSetting): FormRule {
  if (scaled(d)) {
    const low = Math.max(0.01, shown(d, d.min));
    const message = `${d.label}必须在 ${low} ${d.shownAs} 到 ${shown(d, d.max)} ${d.shownAs} 之间`;
    return {
      validator: async (_rule, value: number | null | undefined) => {
        if (value === null || value === undefined) throw new Error(message);
        const stored = storedOf(d, value);
        if (stored < d.min || stored > d.max) throw new Error(message);
      },
    };
  }
  const [min, max] = [shown(d, d.min), shown(d, d.max)];
  const range = d.shownAs === 'minutes' ? `${min} 到 ${max} 分钟` : `${min} 到 ${max}`;
  const zero = d.zeroMeans ? `（0 表示${d.zeroMeans}）` : '';
  return {
    required: true,
    type: 'integer',
    min,
    max,
    message: `${d.label}必须是 ${range} 之间的整数${zero}`,
  };
}

/** Help under a field: its default, so an admin sees how far they moved from it. */
function defaultHint(d: IntegerSetting, value: number) {
  const unit = d.shownAs === 'minutes' ? '分钟' : d.shownAs;
  const zero = d.zeroMeans ? `，0 表示${d.zeroMeans}` : '';
  return (
    <span className="settings-hint">
      默认：{shown(d, value)} {unit}
      {zero}
    </span>
  );
}

/** A single file may not be larger than a whole upload. */
const fileWithinUploadRule: FormRule = ({ getFieldValue }) => ({
  validator: async (_rule, value: number | null) => {
    const total = getFieldValue('max_upload_bytes') as number | null;
    if (value !== null && total !== null && value > total) throw new Error(m.configFileOverUpload);
  },
});

/** Rules and dependencies between settings that no single setting's bounds express. */
const CROSS_RULES: Partial<Record<NumberKey, { rules: FormRule[]; dependencies: NumberKey[] }>> = {
  max_file_bytes: { rules: [fileWithinUploadRule], dependencies: ['max_upload_bytes'] },
};

/** One numeric setting, shown in its form unit. */
function NumberSetting({ field, defaults }: { field: NumberKey; defaults: AdminConfigDto }) {
  const d: IntegerSetting = SETTINGS[field];
  const cross = CROSS_RULES[field];
  return (
    <Col xs={24} md={12}>
      <Form.Item
        name={field}
        label={d.label}
        dependencies={cross?.dependencies}
        rules={[numberRule(d), ...(cross?.rules ?? [])]}
        extra={defaultHint(d, defaults[field])}
      >
        <InputNumber
          className="settings-number"
          controls={false}
          precision={scaled(d) ? 2 : undefined}
          step={d.step}
          suffix={d.shownAs === 'minutes' ? '分钟' : d.shownAs}
        />
      </Form.Item>
    </Col>
  );
}

/** The numeric settings of one card, in the table's order. */
function NumberSettings({ group, defaults }: { group: SettingGroup; defaults: AdminConfigDto }) {
  return NUMBER_KEYS.filter((key) => SETTINGS[key].group === group).map((key) => (
    <NumberSetting key={key} field={key} defaults={defaults} />
  ));
}

/** How this install serves sites, as it runs (the same mode the dashboard reports). */
function SiteIsolationAlert({ isolation, origin }: { isolation: SiteIsolation; origin: string | null }) {
  const text = messages.common.siteIsolation[isolation.mode];
  const values = { origin: origin ?? '', port: isolation.sites_port ?? '' };
  return (
    <Alert
      type={isolation.mode === 'subdomains' ? 'success' : 'info'}
      showIcon
      data-testid="site-isolation"
      title={format(text.title, values)}
      description={format(text.text, values)}
    />
  );
}

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

  const {
    defaults,
    known_extensions: known,
    sites_origin: sitesOrigin,
    site_isolation: isolation,
  } = config.data;
  const groups = extensionGroups(known);

  const submit = async (values: SettingsForm) => {
    try {
      const saved = await save.mutateAsync(fromForm(values, current));
      form.setFieldsValue(toForm(saved.config));
      setDirty(false);
      message.success(m.configSaved);
    } catch (error) {
      const apiError = toApiError(error);
      const onFields = applyFieldErrors(form, apiError, SETTING_KEYS);
      message.error(onFields ? `${m.configInvalid}：请检查标出的设置` : apiError.message);
    }
  };

  const setExtensions = (extensions: readonly string[]) => {
    form.setFieldsValue({ allowed_extensions: extensions.filter((e) => known.includes(e)) });
    setDirty(true);
  };

  const fillDefaults = () => {
    form.setFieldsValue(toForm(defaults));
    form.setFields(SETTING_KEYS.map((name) => ({ name, errors: [] })));
    setDirty(true);
    message.info('已填入默认值，点击“保存设置”后生效');
  };

  const undo = () => {
    if (current) form.setFieldsValue(toForm(current));
    form.setFields(SETTING_KEYS.map((name) => ({ name, errors: [] })));
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
        <Card title={SETTING_GROUPS.uploads.title} className="settings-card">
          <Row gutter={24}>
            <NumberSettings group="uploads" defaults={defaults} />
          </Row>
        </Card>

        <Card
          title={SETTING_GROUPS.extensions.title}
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
            {SETTING_GROUPS.extensions.lead}
          </Typography.Paragraph>
          <Form.Item
            name="allowed_extensions"
            rules={[{ required: true, type: 'array', min: 1, message: m.configExtensionsRequired }]}
          >
            <Checkbox.Group className="settings-extensions" aria-label={SETTINGS.allowed_extensions.label}>
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
          <Form.Item name="unknown_file_types" label={unknownTypes.label} extra={unknownTypes.help}>
            <Radio.Group aria-label={unknownTypes.label}>
              {unknownTypes.options.map((mode) => (
                <Radio key={mode} value={mode}>
                  {unknownTypes.optionLabels[mode]}
                </Radio>
              ))}
            </Radio.Group>
          </Form.Item>
        </Card>

        <Card title={SETTING_GROUPS.quota.title} className="settings-card">
          <Typography.Paragraph type="secondary" className="settings-card__lead">
            {SETTING_GROUPS.quota.lead}
          </Typography.Paragraph>
          <Row gutter={24}>
            <NumberSettings group="quota" defaults={defaults} />
          </Row>
        </Card>

        <Card title={SETTING_GROUPS.preview.title} className="settings-card">
          <Row gutter={24}>
            <NumberSettings group="preview" defaults={defaults} />
            <Col xs={24} md={12}>
              <div className="settings-origin">
                <Typography.Text type="secondary">站点访问方式</Typography.Text>
                <SiteIsolationAlert isolation={isolation} origin={sitesOrigin} />
              </div>
            </Col>
          </Row>
        </Card>

        <Card title={SETTING_GROUPS.render.title} className="settings-card">
          <Typography.Paragraph type="secondary" className="settings-card__lead">
            {SETTING_GROUPS.render.lead}
          </Typography.Paragraph>
          <Row gutter={24}>
            <NumberSettings group="render" defaults={defaults} />
            <Col xs={24}>
              <Form.Item
                name="render_allow_public_assets"
                valuePropName="checked"
                extra={SETTINGS.render_allow_public_assets.help}
              >
                <Checkbox>{SETTINGS.render_allow_public_assets.label}</Checkbox>
              </Form.Item>
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
