/**
 * 上传项目 (docs/product.md §2 "Upload", §5): name, description and files of a new project, checked here with
 * the server's own limits, sent with progress, cancellable while it runs.
 */
import './upload.css';
import { CloudUploadOutlined, InfoCircleOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  DASHBOARD_RECENT_COUNT,
  DESCRIPTION_MAX,
  format,
  formatBytes,
  leastStoredBytes,
  messages,
  PROJECT_NAME_MAX,
  type PublicConfigDto,
  projectDescription,
  projectName,
  type StorageUsageDto,
} from '@sitehall/contracts';
import {
  Alert,
  type AlertRef,
  App,
  Button,
  Card,
  Col,
  Form,
  Input,
  Progress,
  Result,
  Row,
  Steps,
  Switch,
  Tag,
  Typography,
} from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useBlocker, useNavigate } from 'react-router-dom';
import { errorMessage, toApiError } from '../../api/client';
import { usePublicConfig } from '../../api/config';
import { projectsApi, useMyProjects, useUploadKey, useUploadProject } from '../../api/projects';
import { PageHeader } from '../../components/PageHeader';
import { PageLoading } from '../../components/PageLoading';
import { SiteNameItem } from '../../components/SiteNameField';
import { StorageUsage } from '../../components/StorageUsage';
import { UploadDropzone } from '../../components/UploadDropzone';
import { useTouchScreen } from '../../hooks/useTouchScreen';
import { useUploadTask } from '../../hooks/useUploadTask';
import { applyFieldErrors, characterCounter, schemaRule } from '../../lib/form';
import {
  archiveLabel,
  detectUploadType,
  extensionList,
  type PickedFile,
  rulesFromConfig,
  uploadFormData,
} from '../../lib/upload-files';

interface UploadValues {
  project_name: string;
  description?: string;
  /** The site's name (docs/decisions/names.md): suggested from the project name, editable. */
  site_name?: string;
  /** The SPA fallback, set with the upload (also on the project page later). */
  spa_fallback?: boolean;
  files: PickedFile[];
}

const SERVER_FIELDS = [
  'project_name',
  'description',
  'site_name',
  'spa_fallback',
  'files',
  'upload_type',
] as const;

const filesRule = {
  validator: async (_rule: unknown, value: PickedFile[] | undefined) => {
    if (!value || value.length === 0) throw new Error(messages.project.filesRequired);
  },
};

/** Shows what the chosen files will be uploaded as; Form.Item gives it the server's error, if any. */
function UploadTypeField({ files }: { files: PickedFile[]; value?: unknown; onChange?: unknown }) {
  if (files.length === 0) {
    return <Typography.Text type="secondary">选择文件后自动识别</Typography.Text>;
  }
  return detectUploadType(files) === 'zip' ? (
    <span className="upload-type">
      <Tag color="purple">{archiveLabel(files)}</Tag>
      <Typography.Text type="secondary">服务器会解压后发布其中的网站文件</Typography.Text>
    </span>
  ) : (
    <span className="upload-type">
      <Tag color="blue">文件</Tag>
      <Typography.Text type="secondary">按目录结构原样发布这 {files.length} 个文件</Typography.Text>
    </span>
  );
}

/** The info box: the rules of an upload, with this server's numbers. */
function UploadGuide({ config }: { config: PublicConfigDto }) {
  const { limits } = config;
  const touch = useTouchScreen();
  // The dashboard's own query: the storage comes with the owner's newest projects.
  const mine = useMyProjects({ status: 'all', page: 1, page_size: DASHBOARD_RECENT_COUNT });
  return (
    <div className="upload-guide">
      {!mine.isError && (
        <Card size="small">
          <StorageUsage usage={mine.data?.storage} />
        </Card>
      )}
      <Alert
        type="info"
        showIcon
        icon={<InfoCircleOutlined aria-hidden />}
        title="上传说明"
        description={
          <ul className="upload-guide__list">
            <li>
              {touch
                ? '支持上传 ZIP、RAR、7Z 压缩包，也可以选择整个网站文件夹或多个文件。'
                : '支持上传 ZIP、RAR、7Z 压缩包，也可以直接拖入整个网站文件夹或多个文件。'}
            </li>
            <li>
              网站根目录需要有 index.html 作为首页；所有文件都在同一个文件夹内时，会自动以该文件夹为根目录。
            </li>
            <li>
              {`单次最多上传 ${limits.max_files_per_upload} 项（整个文件夹或压缩包算一项），单个文件不超过 ${formatBytes(limits.max_file_bytes)}，总大小不超过 ${formatBytes(limits.max_upload_bytes)}。`}
            </li>
            <li>
              {`压缩包内最多 ${limits.max_archive_entries.toLocaleString('zh-CN')} 个文件，解压后不超过 ${formatBytes(limits.max_archive_uncompressed_bytes)}。`}
            </li>
            <li>只能上传静态网站文件，服务器端代码和可执行文件不会被接受。</li>
            <li>上传后需经管理员审核，通过后即可通过专属地址访问。</li>
          </ul>
        }
      />
      <Card size="small" title="支持的文件类型" className="upload-guide__types">
        <Typography.Text type="secondary" className="upload-guide__extensions">
          {extensionList(config.allowed_extensions)}
        </Typography.Text>
        {config.unknown_file_types === 'download' && (
          <Typography.Paragraph type="secondary" className="upload-guide__other-types">
            文件夹或压缩包中的其他文件（如 LICENSE、源码）会保留，但仅供下载，不作为网页内容。
          </Typography.Paragraph>
        )}
      </Card>
      <Card size="small" title="发布流程">
        <Steps
          orientation="vertical"
          size="small"
          current={0}
          items={[
            { title: '上传文件', content: '提交网站文件，可随时生成预览链接' },
            { title: '等待审核', content: '管理员检查内容与文件类型' },
            { title: '发布上线', content: '获得专属访问地址，公开项目进入展厅' },
          ]}
        />
      </Card>
    </div>
  );
}

/** The server's refusal of files that can't fit in what is left of the quota; null when they may. */
export function quotaRefusal(storage: StorageUsageDto, files: PickedFile[]): string | null {
  const bytes = files.reduce((sum, f) => sum + f.file.size, 0);
  if (storage.used_bytes + leastStoredBytes(bytes) <= storage.quota_bytes) return null;
  return format(messages.project.storageQuotaExceededDeclared, {
    used: formatBytes(storage.used_bytes),
    quota: formatBytes(storage.quota_bytes),
    needed: formatBytes(bytes),
  });
}

function UploadForm({ config }: { config: PublicConfigDto }) {
  const rules = useMemo(() => rulesFromConfig(config), [config]);
  const [form] = Form.useForm<UploadValues>();
  const files: PickedFile[] = Form.useWatch('files', form) ?? [];
  const projectNameValue: string = Form.useWatch('project_name', form) ?? '';
  // The site name follows the project name (its pinyin, made free by the server) until edited.
  const siteNameEdited = useRef(false);
  useEffect(() => {
    const from = projectNameValue.trim();
    if (siteNameEdited.current || from === '') return;
    let current = true;
    const timer = setTimeout(() => {
      projectsApi
        .siteName({ from })
        .then((answer) => {
          if (!current || siteNameEdited.current || !answer.name) return;
          form.setFieldValue('site_name', answer.name);
        })
        .catch(() => undefined);
    }, 400);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [projectNameValue, form]);
  const upload = useUploadProject();
  const task = useUploadTask();
  // The guide's own query (shared): the owner's used space and quota.
  const storage = useMyProjects({ status: 'all', page: 1, page_size: DASHBOARD_RECENT_COUNT }).data?.storage;
  const navigate = useNavigate();
  const { message, modal } = App.useApp();
  const [submitError, setSubmitError] = useState<string | null>(null);
  const busy = upload.isPending;
  // One key per picked set of files and the fields sent with them: submitting them again (after a
  // failure or a lost answer) is a retry of the same upload, which the server answers once.
  const uploadKeyFor = useUploadKey(files);

  // Leaving while the upload runs (cancel, the menu, back) asks first; yes stops the upload.
  const busyRef = useRef(false);
  const blocker = useBlocker(() => busyRef.current);
  const blockerRef = useRef(blocker);
  blockerRef.current = blocker;
  const confirmRef = useRef<{ destroy: () => void } | null>(null);
  const abortUpload = task.abort;
  // The progress bar appears below the form, at the fold's edge of a laptop screen: bring it (and
  // the buttons under it) into view as the upload starts.
  const showProgress = useCallback((bar: HTMLDivElement | null) => {
    bar?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
  }, []);
  // A failure is drawn at the top of the form, above the viewport once the page has scrolled down
  // to the button (−182 px on a laptop, −403 px on a phone): bring it to where the user looks.
  // Smooth too, and a frame later: an instant scroll left the progress bar's smooth scroll running
  // past it when the upload failed at once (the alert ended 694 px above a phone's view).
  const showError = useCallback((alert: AlertRef | null) => {
    const el = alert?.nativeElement;
    if (el) requestAnimationFrame(() => el.scrollIntoView?.({ block: 'center', behavior: 'smooth' }));
  }, []);
  useEffect(() => {
    // One question per attempt to leave, however often this runs while it is open.
    if (blocker.state !== 'blocked' || confirmRef.current) return;
    confirmRef.current = modal.confirm({
      title: messages.project.cancelUploadConfirm,
      content: '取消后已上传的内容不会保存。',
      okText: '确定',
      cancelText: '继续上传',
      okButtonProps: { danger: true },
      onOk: () => {
        confirmRef.current = null;
        busyRef.current = false;
        abortUpload();
        blockerRef.current.proceed?.();
      },
      onCancel: () => {
        confirmRef.current = null;
        blockerRef.current.reset?.();
      },
    });
  }, [blocker.state, modal, abortUpload]);

  useEffect(() => {
    if (!busy) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [busy]);

  const submit = async (values: UploadValues) => {
    setSubmitError(null);
    // Files sure to pass the quota are refused here, with the server's words, before a byte is
    // sent: the server's own check of the declared length, on the files' sizes (which are less).
    const refused = storage && quotaRefusal(storage, values.files);
    if (refused) {
      setSubmitError(refused);
      return;
    }
    busyRef.current = true;
    try {
      const siteName = values.site_name?.trim();
      // As sent (uploadFormData trims them too): a space added at the end is the same upload.
      const fields = {
        project_name: values.project_name.trim(),
        description: (values.description ?? '').trim(),
        ...(siteName ? { site_name: siteName } : {}),
        ...(values.spa_fallback ? { spa_fallback: true } : {}),
      };
      const { project } = await upload.mutateAsync({
        form: uploadFormData(values.files, fields),
        ...task.begin(),
        idempotencyKey: uploadKeyFor(fields),
      });
      busyRef.current = false;
      message.success(messages.project.uploadSuccess);
      const downloadOnly = (project.files ?? []).filter((f) => f.download_only).length;
      if (downloadOnly > 0) message.info(format(messages.archive.downloadOnlyFiles, { n: downloadOnly }));
      // Problems the uploader can fix now (missing files, a missing index.html): shown right away;
      // notes of severity info (root-absolute links, which still load) wait on the project page.
      const usability = (project.usability_findings ?? []).filter((f) => f.severity !== 'info').length;
      // Someone who asked to leave mid-upload goes where they were going; everyone else to the list.
      if (blockerRef.current.state === 'blocked') {
        confirmRef.current?.destroy();
        confirmRef.current = null;
        blockerRef.current.proceed();
      } else if (usability > 0) {
        message.warning(`${messages.review.contentCheck.usabilityTitle}：${usability} 个，请查看并修改`);
        navigate(`/projects/${project.id}`);
      } else {
        navigate('/projects');
      }
    } catch (error) {
      busyRef.current = false;
      if (task.wasAborted()) return;
      const apiError = toApiError(error);
      if (!applyFieldErrors(form, apiError, SERVER_FIELDS)) {
        setSubmitError(apiError.serverMessage ?? messages.project.uploadFailed);
      }
    }
  };

  return (
    <Row gutter={[24, 24]}>
      <Col xs={24} lg={16}>
        <Card className="upload-card">
          <Form<UploadValues>
            form={form}
            layout="vertical"
            onFinish={submit}
            initialValues={{ project_name: '', description: '', site_name: '', files: [] }}
            onValuesChange={(changed: Partial<UploadValues>) => {
              if ('site_name' in changed) siteNameEdited.current = true;
            }}
            disabled={busy}
            requiredMark
          >
            {submitError && (
              <Alert
                ref={showError}
                className="upload-card__alert"
                type="error"
                showIcon
                title={submitError}
                closable={{ onClose: () => setSubmitError(null) }}
              />
            )}
            <Form.Item label="项目名称" name="project_name" required rules={[schemaRule(projectName)]}>
              <Input
                placeholder="例如：我的个人主页"
                count={characterCounter(PROJECT_NAME_MAX)}
                autoComplete="off"
              />
            </Form.Item>
            <SiteNameItem
              projectId={null}
              config={config}
              extra="小写字母、数字和连字符，以字母开头；站点上线后可以通过这个名字访问。"
            />
            <Form.Item label="项目描述" name="description" rules={[schemaRule(projectDescription)]}>
              <Input.TextArea
                placeholder="简单介绍一下这个网站（可选）"
                autoSize={{ minRows: 3, maxRows: 8 }}
                count={characterCounter(DESCRIPTION_MAX)}
              />
            </Form.Item>
            <Form.Item label="项目文件" name="files" required rules={[filesRule]}>
              <UploadDropzone rules={rules} disabled={busy} />
            </Form.Item>
            <Form.Item label="上传类型" name="upload_type">
              <UploadTypeField files={files} />
            </Form.Item>
            <Form.Item
              label="单页应用回退"
              name="spa_fallback"
              valuePropName="checked"
              extra="使用 React Router、Vue Router 等前端路由（history 模式）的站点请开启：站点里不存在的路径都返回 index.html，刷新或直接打开子页面不会显示 404。之后也可以在项目详情页修改。"
            >
              <Switch aria-label="单页应用回退" />
            </Form.Item>

            {busy && (
              <div className="upload-progress" aria-live="polite" ref={showProgress}>
                <div className="upload-progress__label">
                  {task.percent < 100 ? '正在上传...' : '上传完成，正在处理文件...'}
                </div>
                <Progress percent={task.percent} status="active" />
              </div>
            )}

            <div className="upload-card__actions">
              <Button disabled={false} onClick={() => navigate('/dashboard')}>
                取消
              </Button>
              <Button
                type="primary"
                htmlType="submit"
                icon={<CloudUploadOutlined aria-hidden />}
                loading={busy}
                disabled={files.length === 0}
              >
                {busy ? messages.project.uploading : '上传'}
              </Button>
            </div>
          </Form>
        </Card>
      </Col>
      <Col xs={24} lg={8}>
        <UploadGuide config={config} />
      </Col>
    </Row>
  );
}

export function UploadPage() {
  const config = usePublicConfig();
  return (
    <>
      <PageHeader title="上传项目" description="上传静态网站的压缩包、文件或文件夹，提交后等待管理员审核。" />
      {config.isPending ? (
        <Card>
          <PageLoading />
        </Card>
      ) : config.isError ? (
        <Card>
          <Result
            status="warning"
            title="加载上传设置失败"
            subTitle={errorMessage(config.error)}
            extra={
              <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => config.refetch()}>
                重新加载
              </Button>
            }
          />
        </Card>
      ) : (
        <UploadForm config={config.data} />
      )}
    </>
  );
}
