/**
 * The avatar is a picture of the account's own (a data: image), never an address another host
 * answers (docs/decisions/accounts.md "Avatars").
 */
import { messages } from '@sitehall/contracts';
import { render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { UserAvatar } from '../src/components/UserAvatar';
import { fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { renderApp } from './render';

const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

describe('profile: the avatar', () => {
  it('takes a picture chosen from the computer and saves it as a data: image', async () => {
    const user = makeUser({ username: 'alice' });
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      'PUT /auth/profile': (req) =>
        ok({ user: { ...user, ...(req.body as object) } }, messages.auth.profileUpdated),
    });
    signIn(user);
    const app = renderApp('/profile');
    const file = new File([PNG], 'me.png', { type: 'image/png' });
    await screen.findByRole('button', { name: '保存资料' }, { timeout: 15_000 });
    await app.user.upload(screen.getByTestId('avatar-file'), file);
    expect(await screen.findByAltText('alice 的头像')).toHaveAttribute(
      'src',
      expect.stringMatching(/^data:image\/png;base64,/),
    );
    await app.user.click(screen.getByRole('button', { name: '保存资料' }));
    await waitFor(() => expect(api.calls('PUT /auth/profile')).toHaveLength(1));
    const sent = api.calls('PUT /auth/profile')[0]?.body as { avatar?: string } | undefined;
    expect(sent?.avatar).toMatch(/^data:image\/png;base64,iVBOR/);
  });

  it('refuses a picture over 150 KB before sending it', async () => {
    const user = makeUser({ username: 'alice' });
    const api = fakeApi({ 'GET /auth/profile': ok({ user }) });
    signIn(user);
    const app = renderApp('/profile');
    const big = new File([new Uint8Array(160 * 1024)], 'big.png', { type: 'image/png' });
    await screen.findByRole('button', { name: '保存资料' }, { timeout: 15_000 });
    await app.user.upload(screen.getByTestId('avatar-file'), big);
    expect(await screen.findByText(messages.auth.avatarTooLarge)).toBeInTheDocument();
    await app.user.click(screen.getByRole('button', { name: '保存资料' }));
    expect(api.calls('PUT /auth/profile')).toHaveLength(0);
  });

  it('never asks another host for a picture: a remote address shows the initial', () => {
    render(<UserAvatar user={{ username: 'mallory', avatar: 'https://tracker.example/p.gif' }} />);
    expect(screen.queryByRole('img')).not.toBeInTheDocument();
    expect(document.querySelector('img')).toBeNull();
    expect(screen.getByText('M')).toBeInTheDocument();
  });
});
