/**
 * ProjectPicture shows a signed-in picture from an object URL (web/src/api/thumbnails.ts) and
 * releases that URL when it goes away or shows another picture.
 */
import { screen, render as testRender, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders, createQueryClient } from '../src/AppProviders';
import { ProjectPicture } from '../src/components/ProjectPicture';
import { fakeApi } from './fake-api';

const first = `/api/thumbnails/${'a'.repeat(64)}.webp`;
const second = `/api/thumbnails/${'b'.repeat(64)}.webp`;
const original = { createObjectURL: URL.createObjectURL, revokeObjectURL: URL.revokeObjectURL };

describe('ProjectPicture', () => {
  let made: string[];
  const createObjectURL = vi.fn((_blob: Blob) => {
    const url = `blob:picture-${made.length + 1}`;
    made.push(url);
    return url;
  });
  const revokeObjectURL = vi.fn((_url: string) => undefined);

  beforeEach(() => {
    made = [];
    createObjectURL.mockClear();
    revokeObjectURL.mockClear();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    fakeApi({
      [`GET ${first.replace(/^\/api/, '')}`]: { status: 200, body: new Blob(['first']) },
      [`GET ${second.replace(/^\/api/, '')}`]: { status: 200, body: new Blob(['second']) },
    });
  });
  afterEach(() => {
    Object.assign(URL, original);
  });

  function show(thumbnail_url: string | null) {
    const queryClient = createQueryClient();
    const element = (url: string | null) => (
      <AppProviders queryClient={queryClient}>
        <ProjectPicture project={{ name: '天气小站', thumbnail_url: url }} width={320} />
      </AppProviders>
    );
    const view = testRender(element(thumbnail_url));
    return { ...view, showOther: (url: string | null) => view.rerender(element(url)) };
  }

  const picture = () => screen.findByRole('img', { name: '天气小站 的截图' });

  it('revokes its object URL when it unmounts', async () => {
    const { unmount } = show(first);
    expect(await picture()).toHaveAttribute('src', 'blob:picture-1');
    expect(revokeObjectURL).not.toHaveBeenCalled();
    unmount();
    expect(revokeObjectURL).toHaveBeenCalledWith('blob:picture-1');
    expect(revokeObjectURL).toHaveBeenCalledTimes(1);
  });

  it('revokes the old object URL when the picture changes, and the last one at the end', async () => {
    const { showOther, unmount } = show(first);
    expect(await picture()).toHaveAttribute('src', 'blob:picture-1');
    showOther(second);
    await waitFor(() => expect(screen.getByRole('img')).toHaveAttribute('src', 'blob:picture-2'));
    expect(revokeObjectURL.mock.calls).toEqual([['blob:picture-1']]);
    // The picture goes (no picture any more): the letter shows and the URL is released.
    showOther(null);
    expect(await screen.findByText('天')).toBeInTheDocument();
    expect(revokeObjectURL.mock.calls).toEqual([['blob:picture-1'], ['blob:picture-2']]);
    unmount();
    // Every URL made was released once, none twice.
    expect(revokeObjectURL.mock.calls.map(([url]) => url).sort()).toEqual([...made].sort());
  });
});
