import { HomeOutlined, LoginOutlined, UserAddOutlined } from '@ant-design/icons';
import { messages, type RegisterData, USERNAME_MAX, USERNAME_MIN, username } from '@sitehall/contracts';
import { Alert, App, Button, Descriptions, Form, Input, Result, Typography } from 'antd';
import { useState } from 'react';
import { useRegisterUser } from '../../api/auth';
import { toApiError } from '../../api/client';
import { GeneratedPassword } from '../../components/GeneratedPassword';
import { LinkButton } from '../../components/LinkButton';
import { RoleTag } from '../../components/RoleTag';
import { useAuth } from '../../hooks/useAuth';
import { useDocumentTitle } from '../../hooks/useDocumentTitle';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { applyFieldErrors, schemaRule } from '../../lib/form';

interface RegisterValues {
  username: string;
}

const usernameRule = schemaRule(username);

/** Shown to signed-in users who are not admins (docs/product.md §2 "Register"). */
function RestrictedNotice() {
  return (
    <div className="auth-page">
      <div className="auth-card auth-card--wide">
        <Result
          status="403"
          title={messages.auth.registerRestrictedTitle}
          subTitle={messages.auth.registerRestrictedText}
          extra={
            <LinkButton to="/login" type="primary" icon={<LoginOutlined aria-hidden />}>
              返回登录
            </LinkButton>
          }
        />
      </div>
    </div>
  );
}

function CreatedAccount({ result, onContinue }: { result: RegisterData; onContinue: () => void }) {
  const { user, password } = result;
  return (
    <div className="auth-card auth-card--wide">
      <Result
        status="success"
        title="账号已创建"
        subTitle={messages.auth.registerSuccess}
        className="register-result"
      />
      <Descriptions
        bordered
        column={1}
        size="small"
        className="register-result__details"
        items={[
          { key: 'username', label: '用户名', children: user.username },
          { key: 'email', label: '邮箱', children: user.email ?? messages.auth.emailNotSet },
          { key: 'role', label: '角色', children: <RoleTag role={user.role} /> },
        ]}
      />
      <div className="register-result__password">
        <Typography.Text strong>初始密码</Typography.Text>
        <GeneratedPassword password={password} />
      </div>
      <Alert
        type="warning"
        showIcon
        title={messages.auth.passwordOnceWarning}
        description={messages.auth.passwordInitialHint}
        className="register-result__warning"
      />
      <div className="register-result__actions">
        <LinkButton to="/" icon={<HomeOutlined aria-hidden />}>
          返回首页
        </LinkButton>
        <Button type="primary" icon={<UserAddOutlined aria-hidden />} onClick={onContinue}>
          继续注册
        </Button>
      </div>
    </div>
  );
}

export function RegisterPage() {
  useDocumentTitle('注册用户');
  const { hasPermission } = useAuth();
  const { message } = App.useApp();
  const [form] = Form.useForm<RegisterValues>();
  const [created, setCreated] = useState<RegisterData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const register = useRegisterUser();
  const once = useSingleFlight();

  if (!hasPermission('admin')) return <RestrictedNotice />;

  const submit = ({ username: name }: RegisterValues) =>
    once('register', async () => {
      setError(null);
      try {
        const data = await register.mutateAsync({ username: name.trim() });
        setCreated(data);
        message.success(messages.auth.registerSuccess);
      } catch (failure) {
        const apiError = toApiError(failure);
        if (!applyFieldErrors(form, apiError, ['username'])) setError(apiError.message);
      }
    });

  const startOver = () => {
    setCreated(null);
    setError(null);
    register.reset();
    form.resetFields();
  };

  return (
    <div className="auth-page">
      {created ? (
        <CreatedAccount result={created} onContinue={startOver} />
      ) : (
        <div className="auth-card">
          <div className="auth-card__head">
            <div className="auth-card__icon">
              <UserAddOutlined aria-hidden />
            </div>
            <Typography.Title level={1} className="auth-card__title">
              注册新用户
            </Typography.Title>
            <Typography.Paragraph type="secondary" className="auth-card__subtitle">
              系统会自动生成初始密码，仅在创建成功后显示一次。
            </Typography.Paragraph>
          </div>
          {error && (
            <Alert
              className="auth-card__alert"
              type="error"
              showIcon
              title={error}
              closable={{ onClose: () => setError(null) }}
            />
          )}
          <Form<RegisterValues>
            form={form}
            layout="vertical"
            size="large"
            requiredMark={false}
            initialValues={{ username: '' }}
            onFinish={submit}
            disabled={register.isPending}
          >
            <Form.Item
              label="用户名"
              name="username"
              rules={[usernameRule]}
              extra={`${USERNAME_MIN}–${USERNAME_MAX} 个字符，可使用字母、数字、下划线、连字符和中文`}
            >
              <Input placeholder="请输入用户名" autoComplete="off" autoFocus />
            </Form.Item>
            <Form.Item className="auth-card__submit">
              <Button type="primary" htmlType="submit" block loading={register.isPending}>
                {register.isPending ? '注册中...' : '注册'}
              </Button>
            </Form.Item>
          </Form>
        </div>
      )}
    </div>
  );
}
