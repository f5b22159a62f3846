import { messages } from '@sitehall/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { myProjects } from './project-fixtures';
import { renderApp } from './render';

describe('profile: changing the password', () => {
  it('shows the server’s reason for refusing a weak new password under the field', async () => {
    const user = makeUser({ username: 'alice' });
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'PUT /auth/profile': fail(400, '密码不能包含用户名', { new_password: '密码不能包含用户名' }),
    });
    signIn(user);
    const app = renderApp('/profile');
    await app.user.type(await screen.findByLabelText('当前密码'), 'the-current-one');
    await app.user.type(screen.getByLabelText('新密码'), 'alice2024');
    await app.user.type(screen.getByLabelText('确认新密码'), 'alice2024');
    await app.user.click(screen.getByRole('button', { name: '修改密码' }));
    expect(await screen.findByText('密码不能包含用户名')).toBeInTheDocument();
    expect(api.calls('PUT /auth/profile')[0]?.body).toEqual({
      current_password: 'the-current-one',
      new_password: 'alice2024',
    });
  });

  it('changes it once on a double-click: no refusal after the success', async () => {
    const user = makeUser({ username: 'alice' });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    let changed = false;
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      // As the server would: the old password no longer matches once it has been changed.
      'PUT /auth/profile': async () => {
        await answered;
        if (changed) return fail(400, '当前密码错误', { current_password: '当前密码错误' });
        changed = true;
        return ok({ user });
      },
    });
    signIn(user);
    const app = renderApp('/profile');
    await app.user.type(await screen.findByLabelText('当前密码'), 'the-current-one');
    await app.user.type(screen.getByLabelText('新密码'), 'A-much-better-one-2026');
    await app.user.type(screen.getByLabelText('确认新密码'), 'A-much-better-one-2026');
    await app.user.dblClick(screen.getByRole('button', { name: '修改密码' }));
    await waitFor(() => expect(api.calls('PUT /auth/profile').length).toBeGreaterThan(0));
    answer();
    expect(await screen.findByText(messages.auth.passwordChanged)).toBeInTheDocument();
    expect(api.calls('PUT /auth/profile')).toHaveLength(1);
    expect(screen.queryByText('当前密码错误')).not.toBeInTheDocument();
  });

  it('asks an account on its generated password to choose its own, from the dashboard to the form, until it has', async () => {
    let user = makeUser({ username: 'alice', password_initial: true });
    const api = fakeApi({
      'GET /projects/my': myProjects([]),
      'GET /auth/profile': () => ok({ user }),
      'PUT /auth/profile': () => {
        user = { ...user, password_initial: false };
        return ok({ user });
      },
    });
    signIn(user);
    const app = renderApp('/dashboard');
    const note = '你仍在使用系统生成的初始密码，请尽快修改为自己的密码';
    expect(await screen.findByText(note)).toBeInTheDocument();
    await app.user.click(screen.getByRole('link', { name: '去修改密码' }));
    await waitFor(() => expect(app.router.state.location.pathname).toBe('/profile'));
    expect(await screen.findByTestId('initial-password-alert')).toHaveTextContent(note);
    // The link brings the form ready to type: the current password's field has the focus.
    await waitFor(() => expect(screen.getByLabelText('当前密码')).toHaveFocus());
    await app.user.type(screen.getByLabelText('当前密码'), 'the-generated-one');
    await app.user.type(screen.getByLabelText('新密码'), 'A-much-better-one-2026');
    await app.user.type(screen.getByLabelText('确认新密码'), 'A-much-better-one-2026');
    await app.user.click(screen.getByRole('button', { name: '修改密码' }));
    expect(await screen.findByText(messages.auth.passwordChanged)).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('initial-password-alert')).not.toBeInTheDocument());
    expect(api.calls('PUT /auth/profile')).toHaveLength(1);
    // Back on the dashboard: nothing more to ask.
    await app.router.navigate('/dashboard');
    expect(await screen.findByText('你好，alice！在这里查看项目概况与审核进度。')).toBeInTheDocument();
    expect(screen.queryByText(note)).not.toBeInTheDocument();
  });
});
