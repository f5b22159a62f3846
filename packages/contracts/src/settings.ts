/**
 * The platform settings, each written once: key, type, bounds, unit, names, default, where the
 * server stores it and how the settings page shows it. The PUT /api/admin/config schema, the
 * config DTO, the server's stored-value mapping and defaults, the settings form and the audit
 * log's labels all derive from this table (docs/architecture.md "Adding a setting").
 */
import {
  DEFAULT_LIMITS,
  DEFAULT_PREVIEW_TTL_SECONDS,
  DEFAULT_UPLOADS_PER_HOUR,
  DEFAULT_USER_STORAGE_BYTES,
  MB,
  UNKNOWN_FILE_TYPE_MODES,
  USER_STORAGE_BOUNDS,
} from './limits.js';
import { reviewMessages } from './messages/review.js';

const GB = 1024 * MB;

/** The cards of the settings page, in order. */
export const SETTING_GROUPS = {
  uploads: { title: '上传限制' },
  extensions: {
    title: '允许的文件类型',
    lead: '允许的类型作为网页内容提供。同一份列表同时适用于直接上传的文件和压缩包内的文件。可执行文件、安装程序和服务器端脚本始终不能上传。',
  },
  quota: {
    title: '用户配额',
    lead: '存储空间按每个用户所有项目的全部版本（含待审核、已拒绝和被替换的版本）计算；可在“用户管理”中为单个用户设置不同的配额。管理员上传不受每小时次数限制。',
  },
  preview: { title: '预览与站点' },
  render: {
    title: '站点截图',
    lead: '每个上传的版本都会在无登录状态、预览沙箱中由 Chromium 打开并截图，截图同时记录页面运行时向其他网站发出的请求、跳转和下载等行为，作为审核参考。',
  },
} as const;
export type SettingGroup = keyof typeof SETTING_GROUPS;

interface SettingBase {
  /** The short name: API error messages (with the unit) and the audit log. */
  name: string;
  /** The settings form's label. */
  label: string;
  /** Help under the field. */
  help?: string;
  group: SettingGroup;
  /** Where the server keeps it inside its stored settings object ('limits.maxFileBytes'). */
  stored: string;
  /**
   * Given to everyone in GET /api/config/public (the upload page checks files against it): inside
   * its `limits` object, or at its top level. Absent: only admins see it.
   */
  public?: PublicPlace;
}

/** Where a public setting sits in the public config. */
export type PublicPlace = 'limits' | 'top';

/** A whole number within inclusive bounds. */
export interface IntegerSetting extends SettingBase {
  type: 'integer';
  /** What the stored number counts. */
  unit: 'bytes' | 'seconds' | 'count';
  min: number;
  max: number;
  default: number;
  /** How the form shows it: bytes in MB or GB, seconds in minutes, a count with its measure word. */
  shownAs: 'MB' | 'GB' | 'minutes' | '个' | '次';
  /** The input's arrow step in the shown unit. */
  step?: number;
  /** What 0 means when it is not a plain zero ('不限'). */
  zeroMeans?: string;
}

/** One of a fixed set of choices, each with its Chinese label. */
export interface EnumSetting<T extends string = string> extends SettingBase {
  type: 'enum';
  options: readonly T[];
  optionLabels: Record<T, string>;
  default: T;
  invalidMessage: string;
}

/** A set of file extensions (well-formed, none forbidden). */
export interface ExtensionListSetting extends SettingBase {
  type: 'extensions';
  default: readonly string[];
}

/** On or off. */
export interface BooleanSetting extends SettingBase {
  type: 'boolean';
  default: boolean;
  invalidMessage: string;
}

export type SettingDescriptor = IntegerSetting | EnumSetting | ExtensionListSetting | BooleanSetting;

const r = reviewMessages;

/** Every platform setting, in the order of the API and of the audit log. */
export const SETTINGS = {
  max_files_per_upload: {
    type: 'integer',
    unit: 'count',
    min: 1,
    max: 10_000,
    default: DEFAULT_LIMITS.maxFilesPerUpload,
    name: '单次上传文件数',
    label: '单次上传文件数上限',
    group: 'uploads',
    shownAs: '个',
    stored: 'limits.maxFilesPerUpload',
    public: 'limits',
  },
  max_file_bytes: {
    type: 'integer',
    unit: 'bytes',
    min: 1024,
    max: 10 * GB,
    default: DEFAULT_LIMITS.maxFileBytes,
    name: '单个文件大小',
    label: '单个文件大小上限',
    group: 'uploads',
    shownAs: 'MB',
    stored: 'limits.maxFileBytes',
    public: 'limits',
  },
  max_upload_bytes: {
    type: 'integer',
    unit: 'bytes',
    min: 1024,
    max: 20 * GB,
    default: DEFAULT_LIMITS.maxUploadBytes,
    name: '单次上传总大小',
    label: '单次上传总大小上限',
    group: 'uploads',
    shownAs: 'MB',
    stored: 'limits.maxUploadBytes',
    public: 'limits',
  },
  max_archive_entries: {
    type: 'integer',
    unit: 'count',
    min: 1,
    max: 100_000,
    default: DEFAULT_LIMITS.maxArchiveEntries,
    name: '压缩包条目数',
    label: '压缩包条目数上限',
    group: 'uploads',
    shownAs: '个',
    stored: 'limits.maxArchiveEntries',
    public: 'limits',
  },
  max_archive_uncompressed_bytes: {
    type: 'integer',
    unit: 'bytes',
    min: MB,
    max: 50 * GB,
    default: DEFAULT_LIMITS.maxArchiveUncompressedBytes,
    name: '压缩包解压后总大小',
    label: '压缩包解压后总大小上限',
    group: 'uploads',
    shownAs: 'MB',
    step: 10,
    stored: 'limits.maxArchiveUncompressedBytes',
    public: 'limits',
  },
  allowed_extensions: {
    type: 'extensions',
    default: DEFAULT_LIMITS.allowedExtensions,
    name: '允许的文件类型',
    label: '允许的文件类型',
    group: 'extensions',
    stored: 'limits.allowedExtensions',
    public: 'top',
  },
  unknown_file_types: {
    type: 'enum',
    options: UNKNOWN_FILE_TYPE_MODES,
    optionLabels: r.unknownFileTypeLabels,
    default: DEFAULT_LIMITS.unknownFileTypes,
    invalidMessage: r.configUnknownTypesInvalid,
    name: '其他类型的文件',
    label: '其他类型的文件',
    help: '不在允许列表中、也不是可执行文件的文件（如 LICENSE、.scss 源码、.gz）。仅供下载的文件以附件方式提供，页面的脚本仍可读取。',
    group: 'extensions',
    stored: 'limits.unknownFileTypes',
    public: 'top',
  },
  preview_ttl_seconds: {
    type: 'integer',
    unit: 'seconds',
    min: 60,
    max: 7 * 24 * 3600,
    default: DEFAULT_PREVIEW_TTL_SECONDS,
    name: '预览链接有效期',
    label: '预览链接有效期',
    group: 'preview',
    shownAs: 'minutes',
    stored: 'previewTtlSeconds',
    public: 'top',
  },
  max_user_storage_bytes: {
    type: 'integer',
    unit: 'bytes',
    ...USER_STORAGE_BOUNDS,
    default: DEFAULT_USER_STORAGE_BYTES,
    name: '每个用户的存储空间',
    label: '每个用户的存储空间',
    group: 'quota',
    shownAs: 'GB',
    stored: 'userStorageBytes',
  },
  max_uploads_per_hour: {
    type: 'integer',
    unit: 'count',
    min: 0,
    max: 10_000,
    default: DEFAULT_UPLOADS_PER_HOUR,
    zeroMeans: '不限',
    name: '每个用户每小时上传次数',
    label: '每个用户每小时上传次数',
    group: 'quota',
    shownAs: '次',
    stored: 'uploadsPerHour',
  },
  render_concurrency: {
    type: 'integer',
    unit: 'count',
    min: 1,
    max: 8,
    default: 1,
    name: '每个实例同时渲染的页面数',
    label: '同时渲染的页面数',
    help: '每个实例同时打开的截图页面数；每个页面约占用 100–200 MB 内存。',
    group: 'render',
    shownAs: '个',
    stored: 'render.concurrency',
  },
  render_pages_per_browser: {
    type: 'integer',
    unit: 'count',
    min: 1,
    max: 1_000,
    default: 50,
    name: '浏览器重启前渲染的页面数',
    label: '浏览器重启前渲染的页面数',
    help: 'Chromium 渲染这么多页面后重启，以释放内存。',
    group: 'render',
    shownAs: '个',
    stored: 'render.pagesPerBrowser',
  },
  render_allow_public_assets: {
    type: 'boolean',
    default: false,
    invalidMessage: r.configRenderPublicAssetsInvalid,
    name: '截图时允许加载公网样式表、字体和图片',
    label: '截图时允许加载公网样式表、字体和图片',
    help: '开启后截图更接近访客所见；脚本和其他请求仍被拦截，内网、本机和链路本地地址始终被拒绝。',
    group: 'render',
    stored: 'render.allowPublicAssets',
  },
  custom_domains_require_approval: {
    type: 'boolean',
    default: false,
    invalidMessage: r.configDomainApprovalInvalid,
    name: '自定义域名需管理员批准',
    label: '自定义域名需管理员批准',
    help: '开启后，验证通过的自定义域名要在“自定义域名”页批准后才提供访问和申请证书；已生效的域名在批准前暂停。',
    group: 'preview',
    stored: 'customDomainsRequireApproval',
  },
} as const satisfies Record<string, SettingDescriptor>;

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The value type of one setting: a number, one of its options, or a list of extensions. */
export type SettingValue<D> = D extends { type: 'integer' }
  ? number
  : D extends { type: 'boolean' }
    ? boolean
    : D extends { type: 'enum'; options: readonly (infer T)[] }
      ? T
      : string[];

/** Every setting's value, keyed as the API names them (the config DTO). */
export type SettingsValues = { [K in SettingKey]: SettingValue<(typeof SETTINGS)[K]> };

/** Keys of the settings the public config holds, at one place of it or at either. */
export type PublicSettingKey<P extends PublicPlace = PublicPlace> = {
  [K in SettingKey]: (typeof SETTINGS)[K] extends { public: P } ? K : never;
}[SettingKey];

/** The public settings in the public config's shape (the DTO adds where sites are served). */
export type PublicSettingsValues = {
  limits: { [K in PublicSettingKey<'limits'>]: SettingsValues[K] };
} & { [K in PublicSettingKey<'top'>]: SettingsValues[K] };

/** The keys of the public settings at one place, in the table's order. */
export function publicSettingKeys<P extends PublicPlace>(place: P): PublicSettingKey<P>[] {
  return SETTING_KEYS.filter((key) => settingOf(key).public === place) as PublicSettingKey<P>[];
}

/** What of the settings everyone may see, placed as the public config has them (a fresh copy). */
export function publicSettingsOf(values: SettingsValues): PublicSettingsValues {
  const limits: Record<string, unknown> = {};
  const top: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const place = settingOf(key).public;
    if (place === undefined) continue;
    const value = values[key];
    (place === 'limits' ? limits : top)[key] = Array.isArray(value) ? [...value] : value;
  }
  return { limits, ...top } as PublicSettingsValues;
}

/** Keys of the settings of one type. */
export type SettingKeyOf<T extends SettingDescriptor['type']> = {
  [K in SettingKey]: (typeof SETTINGS)[K]['type'] extends T ? K : never;
}[SettingKey];

/** A setting as the code that iterates over all of them sees it. */
export function settingOf(key: SettingKey): SettingDescriptor {
  return SETTINGS[key];
}

const UNIT_WORDS = { bytes: '字节', seconds: '秒', count: '' } as const;

/** A setting's name with its stored unit, as an API error names it ('单个文件大小（字节）'). */
export function settingNameWithUnit(key: SettingKey): string {
  const d = settingOf(key);
  const unit = d.type === 'integer' ? UNIT_WORDS[d.unit] : '';
  return unit ? `${d.name}（${unit}）` : d.name;
}

/** The defaults of every setting (a fresh copy). */
export function settingDefaults(): SettingsValues {
  const values: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const d = settingOf(key);
    values[key] = Array.isArray(d.default) ? [...d.default] : d.default;
  }
  return values as SettingsValues;
}
