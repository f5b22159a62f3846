/**
 * What a first walk through the product found, each as a person meets it: the way in for a
 * visitor, a disabled account's notice, admin wording and labels, and the figures on the cards.
 */
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fail, fakeApi } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { renderApp } from './render';

describe('the way in', () => {
  it('takes a visitor from 开始使用 to a sign-in page that says accounts come from the administrator', async () => {
    fakeApi();
    const { user, router } = renderApp('/');
    await user.click(await screen.findByRole('link', { name: '开始使用' }));
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(router.state.location.pathname).toBe('/login');
    expect(screen.getByText(/账号由管理员创建/)).toBeInTheDocument();
    expect(screen.queryByText('请先登录')).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: '先去逛逛展厅' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/public'));
  });

  it('still says 请先登录 to someone sent from another signed-in page', async () => {
    fakeApi();
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(screen.getByText('请先登录')).toBeInTheDocument();
    expect(screen.queryByText(/账号由管理员创建/)).not.toBeInTheDocument();
  });

  it('tells a user whose account was disabled why they were signed out', async () => {
    fakeApi({ 'GET /auth/profile': fail(401, '账号已被停用，请联系管理员') });
    signIn(makeUser());
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    expect(await screen.findByText('账号已被停用，请联系管理员')).toBeInTheDocument();
    expect(screen.queryByText('请先登录')).not.toBeInTheDocument();
  });

  it('tells it too when a call during the visit finds the account disabled', async () => {
    fakeApi({ 'GET /projects/my': fail(401, '账号已被停用，请联系管理员') });
    signIn(makeUser());
    renderApp('/projects');
    await screen.findByRole('heading', { name: '登录站点展厅' });
    await waitFor(() => expect(screen.getByText('账号已被停用，请联系管理员')).toBeInTheDocument());
  });
});
