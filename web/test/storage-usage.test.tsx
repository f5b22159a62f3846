/** The owner's storage bar (used / quota) on the dashboard, my projects and the upload page. */
import { MB } from '@sitehall/contracts';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { makeProject, myProjects, publicConfig } from './project-fixtures';
import { renderApp } from './render';

const GB = 1024 * MB;

async function open(path: string, storage: { used_bytes: number; quota_bytes: number }) {
  const api = fakeApi({
    'GET /projects/my': myProjects([makeProject()], undefined, 1, 12, storage),
    'GET /config/public': ok(publicConfig),
  });
  signIn(makeUser());
  renderApp(path);
  const box = await screen.findByTestId('storage-usage');
  return { api, box };
}

describe('storage usage bar', () => {
  for (const [path, page] of [
    ['/dashboard', '控制台'],
    ['/projects', '我的项目'],
    ['/upload', '上传项目'],
  ] as const) {
    it(`shows used space against the quota on ${page}`, async () => {
      const { box } = await open(path, { used_bytes: 300 * MB, quota_bytes: GB });
      expect(within(box).getByText('存储空间')).toBeInTheDocument();
      expect(within(box).getByText('已使用 300 MB / 1 GB')).toBeInTheDocument();
      const bar = within(box).getByRole('progressbar');
      expect(bar).toHaveAttribute('aria-valuenow', '29');
      expect(bar).toHaveAccessibleName('存储空间：已使用 300 MB / 1 GB');
      expect(within(box).queryByText(/存储空间已用完/)).not.toBeInTheDocument();
    });
  }

  it('reads full, in red, with what to do, when the quota is used up', async () => {
    const { box } = await open('/upload', { used_bytes: 1.2 * GB, quota_bytes: GB });
    expect(within(box).getByText('已使用 1.2 GB / 1 GB')).toBeInTheDocument();
    expect(within(box).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '100');
    expect(box.querySelector('.ant-progress-status-exception')).not.toBeNull();
    expect(
      within(box).getByText(/存储空间已用完：请删除不再需要的项目，或联系管理员提高配额/),
    ).toBeInTheDocument();
  });
});
