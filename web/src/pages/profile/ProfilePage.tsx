import { LockOutlined, MailOutlined } from '@ant-design/icons';
import { avatar, email, messages, newPassword, type UserDto } from '@sitehall/contracts';
import { Alert, App, Button, Card, Col, Descriptions, Form, Input, Row, Switch, Typography } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router-dom';
import { useUpdateProfile } from '../../api/auth';
import { type ApiError, toApiError } from '../../api/client';
import { usePublicConfig } from '../../api/config';
import { PageHeader } from '../../components/PageHeader';
import { RoleTag } from '../../components/RoleTag';
import { UserAvatar } from '../../components/UserAvatar';
import { useAuth } from '../../hooks/useAuth';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { applyFieldErrors, schemaRule } from '../../lib/form';
import { formatDateTime } from '../../lib/format';
import { INITIAL_PASSWORD_NOTE } from '../../lib/initial-password';
import { ApiTokensCard } from './ApiTokensCard';
import { AvatarPicker } from './AvatarPicker';

interface ProfileValues {
  email: string;
  avatar: string;
}

interface PasswordValues {
  current_password: string;
  new_password: string;
  confirm_password: string;
}

const optional = (schema: Parameters<typeof schemaRule>[0]) =>
  schemaRule({
    safeParse: (value: unknown) =>
      typeof value === 'string' && value.trim() === '' ? { success: true } : schema.safeParse(value),
  });

function AccountCard({ user }: { user: UserDto }) {
  return (
    <Card className="profile-card">
      <div className="profile-card__identity">
        <UserAvatar user={user} size={72} />
        <div>
          <Typography.Title level={2} className="profile-card__name">
            {user.username}
          </Typography.Title>
          <RoleTag role={user.role} />
        </div>
      </div>
      <Descriptions
        column={1}
        size="small"
        items={[
          { key: 'email', label: '邮箱', children: user.email ?? messages.auth.emailNotSet },
          { key: 'created', label: '创建时间', children: formatDateTime(user.created_at) },
          { key: 'login', label: '最近登录', children: formatDateTime(user.last_login_at, '从未登录') },
        ]}
      />
    </Card>
  );
}

function ProfileForm({ user }: { user: UserDto }) {
  const { setUser } = useAuth();
  const { message } = App.useApp();
  const [form] = Form.useForm<ProfileValues>();
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateProfile();

  const submit = (values: ProfileValues) => {
    setError(null);
    update.mutate(
      { email: values.email.trim(), avatar: values.avatar.trim() },
      {
        onSuccess: ({ user: saved }) => {
          setUser(saved);
          // The field shows what was kept: the server lower-cases an address, and spaces are none.
          form.setFieldsValue({ email: saved.email ?? '' });
          message.success(messages.auth.profileUpdated);
        },
        onError: (failure) => showError(toApiError(failure)),
      },
    );
  };
  const showError = (apiError: ApiError) => {
    if (!applyFieldErrors(form, apiError, ['email', 'avatar'])) setError(apiError.message);
  };

  return (
    <Card title="基本资料" className="profile-section">
      {error && <Alert type="error" showIcon title={error} className="profile-section__alert" />}
      <Form<ProfileValues>
        form={form}
        layout="vertical"
        initialValues={{ email: user.email ?? '', avatar: user.avatar ?? '' }}
        onFinish={submit}
        disabled={update.isPending}
      >
        <Form.Item label="邮箱" name="email" rules={[optional(email)]} extra="可用于登录；留空表示不设置。">
          <Input
            prefix={<MailOutlined aria-hidden className="input-icon" />}
            placeholder="name@example.com"
          />
        </Form.Item>
        <Form.Item
          label="头像"
          name="avatar"
          rules={[optional(avatar)]}
          extra="PNG、JPEG、GIF 或 WebP 图片，不超过 150 KB；不设置则显示用户名首字。"
        >
          <AvatarPicker username={user.username} disabled={update.isPending} />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={update.isPending}>
          保存资料
        </Button>
      </Form>
    </Card>
  );
}

function PasswordForm({ username, initial }: { username: string; initial: boolean }) {
  const { setUser } = useAuth();
  const { message } = App.useApp();
  const [form] = Form.useForm<PasswordValues>();
  const [error, setError] = useState<string | null>(null);
  const update = useUpdateProfile();
  const once = useSingleFlight();
  const card = useRef<HTMLDivElement>(null);
  const { hash } = useLocation();
  // 去修改密码 on the dashboard links here (/profile#change-password): the form in view, ready to type.
  useEffect(() => {
    if (hash !== '#change-password' || !card.current) return;
    card.current.scrollIntoView?.({ block: 'start' });
    card.current.querySelector<HTMLInputElement>('input[type="password"]')?.focus();
  }, [hash]);

  // Once per click: a second submit while the first is on its way would be refused (the current
  // password has changed) after the first succeeded.
  const submit = (values: PasswordValues) =>
    once('password', async () => {
      setError(null);
      try {
        const { user: saved } = await update.mutateAsync({
          current_password: values.current_password,
          new_password: values.new_password,
        });
        // The account's own password now: the initial-password notices go.
        setUser(saved);
        form.resetFields();
        message.success(messages.auth.passwordChanged);
      } catch (failure) {
        const apiError = toApiError(failure);
        if (!applyFieldErrors(form, apiError, ['current_password', 'new_password']))
          setError(apiError.message);
      }
    });

  return (
    <Card title="修改密码" className="profile-section" id="change-password" ref={card}>
      {initial && (
        <Alert
          type="warning"
          showIcon
          title={INITIAL_PASSWORD_NOTE}
          description="初始密码由系统生成，管理员或看过服务器日志的人可能知道它。请在下面设置一个只有你知道的新密码。"
          className="profile-section__alert"
          data-testid="initial-password-alert"
        />
      )}
      {error && <Alert type="error" showIcon title={error} className="profile-section__alert" />}
      <Form<PasswordValues> form={form} layout="vertical" onFinish={submit} disabled={update.isPending}>
        {/* Lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={username} readOnly hidden />
        <Form.Item
          label="当前密码"
          name="current_password"
          rules={[{ required: true, message: messages.auth.currentPasswordRequired }]}
        >
          <Input.Password
            prefix={<LockOutlined aria-hidden className="input-icon" />}
            autoComplete="current-password"
          />
        </Form.Item>
        <Form.Item
          label="新密码"
          name="new_password"
          dependencies={['current_password']}
          rules={[
            schemaRule(newPassword),
            ({ getFieldValue }) => ({
              validator: async (_rule, value: string) => {
                if (value && value === getFieldValue('current_password')) {
                  throw new Error(messages.auth.newPasswordSame);
                }
              },
            }),
          ]}
          required
          hasFeedback
        >
          <Input.Password
            prefix={<LockOutlined aria-hidden className="input-icon" />}
            autoComplete="new-password"
          />
        </Form.Item>
        <Form.Item
          label="确认新密码"
          name="confirm_password"
          dependencies={['new_password']}
          hasFeedback
          rules={[
            { required: true, message: messages.auth.passwordMismatch },
            ({ getFieldValue }) => ({
              validator: async (_rule, value: string) => {
                if (value && value !== getFieldValue('new_password')) {
                  throw new Error(messages.auth.passwordMismatch);
                }
              },
            }),
          ]}
        >
          <Input.Password
            prefix={<LockOutlined aria-hidden className="input-icon" />}
            autoComplete="new-password"
          />
        </Form.Item>
        <Typography.Paragraph type="secondary" className="profile-section__note">
          修改密码后，你在其他设备上的登录将会退出。
        </Typography.Paragraph>
        <Button type="primary" htmlType="submit" loading={update.isPending}>
          修改密码
        </Button>
      </Form>
    </Card>
  );
}

/** Whether notices also come by e-mail (docs/notifications.md); they always appear under the bell. */
function NotificationSettings({ user }: { user: UserDto }) {
  const { setUser } = useAuth();
  const { message } = App.useApp();
  const update = useUpdateProfile();
  // Without a mail server (SMTP_URL) nothing is sent: the switch would promise what can't happen.
  const mailEnabled = usePublicConfig().data?.mail_enabled ?? true;
  const toggle = (on: boolean) =>
    update.mutate(
      { email_notifications: on },
      {
        onSuccess: ({ user: saved }) => {
          setUser(saved);
          message.success(on ? messages.notification.emailOn : messages.notification.emailOff);
        },
        onError: (failure) => message.error(toApiError(failure).message),
      },
    );
  return (
    <Card title="通知" className="profile-section">
      <div className="profile-notify">
        <div>
          <Typography.Text strong id="email-notifications-label">
            邮件通知
          </Typography.Text>
          <Typography.Paragraph type="secondary" className="profile-notify__hint">
            审核结果、下线、新版本上线与回滚{user.role === 'admin' ? '，以及新的待审核上传' : ''}
            会出现在右上角的通知中；
            {mailEnabled
              ? `开启后也会发送到你的邮箱${user.email ? `（${user.email}）` : '（请先在「基本资料」中填写邮箱）'}。`
              : '本平台未配置邮件服务，暂不能通过邮件接收通知。'}
          </Typography.Paragraph>
        </div>
        <Switch
          aria-labelledby="email-notifications-label"
          checked={mailEnabled && user.email_notifications}
          disabled={!mailEnabled}
          loading={update.isPending}
          onChange={toggle}
        />
      </div>
    </Card>
  );
}

export function ProfilePage() {
  const { user } = useAuth();
  if (!user) return null;
  return (
    <>
      <PageHeader title="个人设置" description="管理你的账号资料、登录密码与 API 令牌。" />
      <Row gutter={[20, 20]}>
        <Col xs={24} xl={8}>
          <AccountCard user={user} />
        </Col>
        <Col xs={24} xl={16}>
          <div className="profile-stack">
            <ProfileForm user={user} />
            <PasswordForm username={user.username} initial={user.password_initial} />
            <NotificationSettings user={user} />
            <ApiTokensCard />
          </div>
        </Col>
      </Row>
    </>
  );
}
