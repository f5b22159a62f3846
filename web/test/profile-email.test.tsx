import { messages } from '@sitehall/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { renderApp } from './render';

describe('profile: the email address', () => {
  it('shows the address as the server saved it: lower-cased, or empty when only spaces were typed', async () => {
    const user = makeUser({ username: 'alice', email: null });
    const api = fakeApi({
      'GET /auth/profile': ok({ user }),
      // As the server does: an address is kept lower-cased, and an empty one is none.
      'PUT /auth/profile': (request) => {
        const { email } = request.body as { email: string };
        return ok({ user: { ...user, email: email ? email.toLowerCase() : null } });
      },
    });
    signIn(user);
    const app = renderApp('/profile');
    const field = await screen.findByLabelText('邮箱');
    await app.user.type(field, 'Alice@Example.COM ');
    await app.user.click(screen.getByRole('button', { name: '保存资料' }));
    await screen.findByText(messages.auth.profileUpdated);
    await waitFor(() => expect(field).toHaveValue('alice@example.com'));

    await app.user.clear(field);
    await app.user.type(field, '   ');
    await app.user.click(screen.getByRole('button', { name: '保存资料' }));
    await waitFor(() => expect(api.calls('PUT /auth/profile')).toHaveLength(2));
    expect(api.calls('PUT /auth/profile')[1]?.body).toMatchObject({ email: '' });
    await waitFor(() => expect(field).toHaveValue(''));
  });
});
