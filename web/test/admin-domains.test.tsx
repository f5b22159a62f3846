import { type AdminDomainDto, messages } from '@sitehall/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fake-api';
import { adminUser, signIn } from './fixtures';
import { renderApp } from './render';

const domain = (over: Partial<AdminDomainDto>): AdminDomainDto => ({
  id: 1,
  project_id: 7,
  domain: 'www.myclub.org',
  state: 'active',
  not_served_reason: null,
  txt_name: '_sitehall.www.myclub.org',
  txt_value: 'sitehall-verify=x',
  cname_target: null,
  verified_at: '2024-05-01T00:00:00.000Z',
  approved_at: null,
  created_at: '2024-05-01T00:00:00.000Z',
  project_name: '俱乐部',
  owner_username: 'alice',
  ...over,
});

describe('admin custom domains list', () => {
  it('says a verified domain that is not served is 未生效, with the reason, never 已生效', async () => {
    fakeApi({
      'GET /admin/domains': ok({
        require_approval: false,
        unavailable_reason: messages.domain.notServedNoPublicUrl,
        domains: [
          domain({}),
          domain({
            id: 2,
            domain: 'old.myclub.org',
            state: 'not_served',
            not_served_reason: messages.domain.notServedNoPublicUrl,
          }),
        ],
      }),
    });
    signIn(adminUser());
    renderApp('/admin/domains');
    const row = (name: string) => screen.getByText(name).closest('tr') as HTMLElement;
    await screen.findByText('old.myclub.org');
    expect(within(row('www.myclub.org')).getByText('已生效')).toBeInTheDocument();
    expect(within(row('old.myclub.org')).getByText('未生效')).toBeInTheDocument();
    expect(within(row('old.myclub.org')).queryByText('已生效')).toBeNull();
    expect(within(row('old.myclub.org')).getByText(messages.domain.notServedNoPublicUrl)).toBeInTheDocument();
    // Above the list, once: this install serves none, and why.
    expect(screen.getAllByText(messages.domain.notServedNoPublicUrl)).toHaveLength(2);
  });

  it('says why the default install lists no domain', async () => {
    fakeApi({
      'GET /admin/domains': ok({
        require_approval: false,
        unavailable_reason: messages.domain.adminUnavailable,
        domains: [],
      }),
    });
    signIn(adminUser());
    renderApp('/admin/domains');
    expect(await screen.findByText(messages.domain.adminUnavailable)).toBeInTheDocument();
    expect(screen.getByText('还没有自定义域名')).toBeInTheDocument();
  });

  it('labels each cell with its column for the phone cards', async () => {
    fakeApi({
      'GET /admin/domains': ok({ require_approval: false, unavailable_reason: null, domains: [domain({})] }),
    });
    signIn(adminUser());
    renderApp('/admin/domains');
    const cell = (await screen.findByText('www.myclub.org')).closest('td') as HTMLElement;
    expect(cell).toHaveAttribute('data-label', '域名');
    expect(cell.closest('.paged-table--stack')).not.toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
