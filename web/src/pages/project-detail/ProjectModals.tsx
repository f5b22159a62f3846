/**
 * Editing a project's name, site name, description and visibility, and uploading a new version of
 * its files.
 */
import { CloudUploadOutlined } from '@ant-design/icons';
import {
  DESCRIPTION_MAX,
  messages,
  PROJECT_NAME_MAX,
  type ProjectDto,
  projectDescription,
  projectName,
} from '@sitehall/contracts';
import { Alert, App, Button, Form, Input, Modal, Progress, Result, Spin, Switch, Typography } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { errorMessage, toApiError } from '../../api/client';
import { usePublicConfig } from '../../api/config';
import { newUploadKey, useUpdateProject, useUploadVersion } from '../../api/projects';
import { SiteNameItem } from '../../components/SiteNameField';
import { UploadDropzone } from '../../components/UploadDropzone';
import { useUploadTask } from '../../hooks/useUploadTask';
import { applyFieldErrors, characterCounter, schemaRule } from '../../lib/form';
import {
  archiveLabel,
  detectUploadType,
  type PickedFile,
  rulesFromConfig,
  uploadFormData,
} from '../../lib/upload-files';

interface EditValues {
  name: string;
  /** The site's name (docs/decisions/names.md); a rename keeps the old address for 30 days. */
  site_name: string;
  description: string;
  is_public: boolean;
}

interface ModalProps {
  project: ProjectDto;
  open: boolean;
  onClose: () => void;
}

export function EditProjectModal({ project, open, onClose }: ModalProps) {
  const [form] = Form.useForm<EditValues>();
  const update = useUpdateProject(project.id);
  const config = usePublicConfig();
  const { message } = App.useApp();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!open) return;
    setError(null);
    form.setFieldsValue({
      name: project.name,
      site_name: project.site_name ?? '',
      description: project.description ?? '',
      is_public: project.is_public,
    });
  }, [open, project, form]);

  const save = async (values: EditValues) => {
    setError(null);
    // Sent only when changed: an empty field keeps the name (a site's name can change, not go).
    const siteName = values.site_name?.trim().toLowerCase() ?? '';
    const renamed = siteName !== '' && siteName !== project.site_name;
    try {
      await update.mutateAsync({
        name: values.name.trim(),
        ...(renamed ? { site_name: siteName } : {}),
        description: values.description.trim(),
        is_public: values.is_public,
      });
      message.success(
        renamed && project.site_name ? messages.project.siteNameRenamed : messages.project.updated,
      );
      onClose();
    } catch (failure) {
      const apiError = toApiError(failure);
      if (!applyFieldErrors(form, apiError, ['name', 'site_name', 'description', 'is_public']))
        setError(apiError.message);
    }
  };

  return (
    <Modal
      title="编辑项目信息"
      open={open}
      onCancel={onClose}
      okText="保存"
      cancelText="取消"
      confirmLoading={update.isPending}
      onOk={() => form.submit()}
      destroyOnHidden
    >
      <Form<EditValues> form={form} layout="vertical" onFinish={save} className="detail-modal-form">
        {error && <Alert type="error" showIcon title={error} className="detail-modal-form__alert" />}
        <Form.Item label="项目名称" name="name" required rules={[schemaRule(projectName)]}>
          <Input count={characterCounter(PROJECT_NAME_MAX)} autoComplete="off" />
        </Form.Item>
        {config.data && (
          <SiteNameItem
            projectId={project.id}
            config={config.data}
            required={project.site_name !== null}
            extra={
              project.site_name
                ? '改名后，旧地址在 30 天内跳转到新地址，之后旧名字可被他人使用。'
                : '小写字母、数字和连字符，以字母开头；设置后站点通过这个名字访问。'
            }
          />
        )}
        <Form.Item label="项目描述" name="description" rules={[schemaRule(projectDescription)]}>
          <Input.TextArea autoSize={{ minRows: 3, maxRows: 8 }} count={characterCounter(DESCRIPTION_MAX)} />
        </Form.Item>
        <Form.Item
          label="公开展示"
          name="is_public"
          valuePropName="checked"
          extra="开启后，项目发布后会出现在公开展厅中；关闭后仍可通过访问地址打开。"
        >
          <Switch checkedChildren="公开" unCheckedChildren="私有" />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export function NewVersionModal({ project, open, onClose }: ModalProps) {
  const config = usePublicConfig();
  const rules = useMemo(() => (config.data ? rulesFromConfig(config.data) : null), [config.data]);
  const upload = useUploadVersion(project.id);
  const task = useUploadTask();
  const { message, modal } = App.useApp();
  const [files, setFiles] = useState<PickedFile[]>([]);
  // One key per picked set of files: sending the same files again is a retry of the same upload.
  const uploadKey = useMemo(() => (files.length > 0 ? newUploadKey() : ''), [files]);
  const [error, setError] = useState<string | null>(null);
  const busy = upload.isPending;

  useEffect(() => {
    if (open) {
      setFiles([]);
      setError(null);
    }
  }, [open]);

  const send = async () => {
    if (files.length === 0) {
      setError(messages.project.filesRequired);
      return;
    }
    setError(null);
    try {
      await upload.mutateAsync({
        form: uploadFormData(files, {}),
        ...task.begin(),
        idempotencyKey: uploadKey,
      });
      message.success(messages.project.versionUploaded);
      onClose();
    } catch (failure) {
      if (task.wasAborted()) return;
      const apiError = toApiError(failure);
      setError(
        apiError.fieldErrors.files ??
          apiError.fieldErrors.upload_type ??
          apiError.serverMessage ??
          messages.project.uploadFailed,
      );
    }
  };

  const close = () => {
    if (!busy) {
      onClose();
      return;
    }
    modal.confirm({
      title: messages.project.cancelUploadConfirm,
      okText: '确定',
      cancelText: '继续上传',
      okButtonProps: { danger: true },
      onOk: () => {
        task.abort();
        onClose();
      },
    });
  };

  const nextVersion = (project.latest_version ?? 0) + 1;

  return (
    <Modal
      title={`上传新版本 v${nextVersion}`}
      open={open}
      onCancel={close}
      width={640}
      mask={{ closable: !busy }}
      destroyOnHidden
      footer={[
        <Button key="cancel" onClick={close}>
          取消
        </Button>,
        <Button
          key="send"
          type="primary"
          icon={<CloudUploadOutlined aria-hidden />}
          loading={busy}
          disabled={files.length === 0}
          onClick={send}
        >
          {busy ? messages.project.uploading : '上传新版本'}
        </Button>,
      ]}
    >
      <Typography.Paragraph type="secondary">
        {project.is_live
          ? `新版本需要重新审核。审核通过前，线上版本 v${project.live_version} 继续提供访问，通过后自动切换。`
          : '新版本会替换当前文件并重新进入审核。'}
      </Typography.Paragraph>
      {error && <Alert type="error" showIcon title={error} className="detail-modal-form__alert" />}
      {config.isPending ? (
        <div className="detail-modal__loading">
          <Spin />
        </div>
      ) : !rules ? (
        <Result
          status="warning"
          title="加载上传设置失败"
          subTitle={errorMessage(config.error)}
          extra={<Button onClick={() => config.refetch()}>重新加载</Button>}
        />
      ) : (
        <>
          <UploadDropzone value={files} onChange={setFiles} rules={rules} disabled={busy} />
          {files.length > 0 && (
            <Typography.Paragraph type="secondary" className="detail-modal__type">
              上传类型：
              {detectUploadType(files) === 'zip' ? archiveLabel(files) : `文件（${files.length} 个）`}
            </Typography.Paragraph>
          )}
        </>
      )}
      {busy && (
        <div className="detail-modal__progress" aria-live="polite">
          <Typography.Text type="secondary">
            {task.percent < 100 ? '正在上传...' : '上传完成，正在处理文件...'}
          </Typography.Text>
          <Progress percent={task.percent} status="active" />
        </div>
      )}
    </Modal>
  );
}
