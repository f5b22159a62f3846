import { LockOutlined, UserOutlined } from '@ant-design/icons';
import { format, loginBody, messages } from '@sitehall/contracts';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, Button, Checkbox, Form, Input, Typography } from 'antd';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { type ApiError, toApiError } from '../../api/client';
import { returnPath } from '../../components/auth/RouteGuards';
import { BrandMark } from '../../components/BrandLogo';
import { type FromState, type LoginCredentials, useAuth } from '../../hooks/useAuth';
import { useDocumentTitle } from '../../hooks/useDocumentTitle';
import { schemaRule } from '../../lib/form';
import { formatRetryWait } from '../../lib/format';

const usernameRule = schemaRule(loginBody.shape.username);
const passwordRule = schemaRule(loginBody.shape.password);

/** The banner for a failed sign-in: a throttled one says how long to wait (from Retry-After). */
function loginFailureText(error: ApiError): string {
  const m = messages.auth;
  const text = error.serverMessage ?? m.loginFailed;
  if (error.status !== 429 || error.retryAfterSeconds === null) return text;
  const wait = formatRetryWait(error.retryAfterSeconds);
  if (text === m.loginThrottled) return format(m.loginThrottledFor, { wait });
  if (text === m.loginBusy) return format(m.loginBusyFor, { wait });
  return `${text}（${wait}）`;
}

export function LoginPage() {
  useDocumentTitle('登录');
  const { login } = useAuth();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const state = location.state as FromState | null;
  const [form] = Form.useForm<LoginCredentials>();
  const [error, setError] = useState<string | null>(null);

  const signIn = useMutation({
    mutationFn: (values: LoginCredentials) => login({ ...values, username: values.username.trim() }),
    onMutate: () => setError(null),
    onSuccess: (signedIn) => {
      message.success(messages.auth.loginSuccess);
      navigate(returnPath(state, signedIn.role), { replace: true });
    },
    onError: (failure) => setError(loginFailureText(toApiError(failure))),
  });

  // 开始使用 leads a visitor here (and 注册账号 by way of /register, docs/product.md §2): maybe no account to
  // sign in with yet, so say where accounts come from and offer the showcase instead of 请先登录.
  const fromRegister = !state?.expired && (state?.start === true || state?.from?.pathname === '/register');
  const notice = state?.reason
    ? state.reason
    : state?.expired
      ? messages.common.sessionExpired
      : state?.from && !fromRegister
        ? messages.common.unauthenticated
        : null;

  return (
    <div className="auth-page">
      <div className="auth-card">
        <div className="auth-card__head">
          <BrandMark size={44} />
          <Typography.Title level={1} className="auth-card__title">
            登录站点展厅
          </Typography.Title>
          <Typography.Paragraph type="secondary" className="auth-card__subtitle">
            使用管理员为你创建的账号登录
          </Typography.Paragraph>
        </div>

        {notice && !error && (
          <Alert
            className="auth-card__alert"
            type={state?.reason ? 'warning' : 'info'}
            showIcon
            title={notice}
          />
        )}
        {fromRegister && !error && (
          <Alert
            className="auth-card__alert"
            type="info"
            showIcon
            title={messages.auth.accountsByAdmin}
            action={
              <Link to="/public" className="auth-card__showcase">
                先去逛逛展厅
              </Link>
            }
          />
        )}
        {error && (
          <Alert
            className="auth-card__alert"
            type="error"
            showIcon
            title={error}
            closable={{ onClose: () => setError(null), 'aria-label': '关闭错误提示' }}
          />
        )}

        <Form<LoginCredentials>
          form={form}
          layout="vertical"
          size="large"
          requiredMark={false}
          initialValues={{ username: '', password: '', remember: false }}
          onFinish={(values) => signIn.mutate(values)}
          disabled={signIn.isPending}
        >
          <Form.Item label="用户名或邮箱" name="username" rules={[usernameRule]}>
            <Input
              prefix={<UserOutlined aria-hidden className="input-icon" />}
              placeholder="请输入用户名或邮箱"
              autoComplete="username"
              autoFocus
            />
          </Form.Item>
          <Form.Item label="密码" name="password" rules={[passwordRule]}>
            <Input.Password
              prefix={<LockOutlined aria-hidden className="input-icon" />}
              placeholder="请输入密码"
              autoComplete="current-password"
            />
          </Form.Item>
          <Form.Item name="remember" valuePropName="checked" className="auth-card__remember">
            <Checkbox>记住我</Checkbox>
          </Form.Item>
          <Typography.Text type="secondary" className="auth-card__hint">
            勾选后 30 天内保持登录；未勾选时只在当前标签页内保持登录，关闭它即退出。
          </Typography.Text>
          <Form.Item className="auth-card__submit">
            <Button type="primary" htmlType="submit" block loading={signIn.isPending}>
              {signIn.isPending ? '登录中...' : '登录'}
            </Button>
          </Form.Item>
        </Form>

        <Typography.Paragraph type="secondary" className="auth-card__footer">
          没有账号？平台不开放自助注册，请联系管理员为你创建账号。
        </Typography.Paragraph>
      </div>
    </div>
  );
}
