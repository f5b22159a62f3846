import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { type FakeRequest, fail, fakeApi, ok } from './fake-api';
import { makeUser, signIn } from './fixtures';
import { makeProject, myProjects, publicConfig } from './project-fixtures';
import { renderApp } from './render';

function file(path: string, size = 16, type = ''): File {
  const f = new File([new Uint8Array(size).fill(60)], path.split('/').at(-1) ?? path, {
    type,
    lastModified: 1,
  });
  if (path.includes('/')) Object.defineProperty(f, 'webkitRelativePath', { value: path });
  return f;
}

/** Chooses files through one of the hidden pickers, as the browser does after the dialog. */
function pick(testId: 'file-input' | 'folder-input', files: File[]) {
  const input = screen.getByTestId(testId) as HTMLInputElement;
  Object.defineProperty(input, 'files', { value: files, configurable: true });
  fireEvent.change(input);
}

async function openUpload(routes: Parameters<typeof fakeApi>[0] = {}) {
  const api = fakeApi({
    'GET /config/public': ok(publicConfig),
    'GET /projects/my': myProjects([]),
    ...routes,
  });
  signIn(makeUser());
  const app = renderApp('/upload');
  await screen.findByText('将网站文件夹、文件或压缩包拖到此处');
  return { ...app, api };
}

// Role queries over the whole antd page are slow in jsdom; buttons are found by their text.
const button = (text: string | RegExp) =>
  screen.getByText(text, { selector: 'button span' }).closest('button') as HTMLButtonElement;
const findButton = async (text: string | RegExp) =>
  (await screen.findByText(text, { selector: 'button span' })).closest('button') as HTMLButtonElement;
const submitButton = () => button(/^(上传|上传中\.\.\.)$/);
const nameInput = () => screen.getByLabelText('项目名称');

describe('upload page', () => {
  it('shows the limits from the server config in the picker and the instructions', async () => {
    await openUpload();
    expect(screen.getByRole('heading', { level: 1, name: '上传项目' })).toBeInTheDocument();
    expect(
      screen.getByText(
        '单次最多上传 20 项（整个文件夹或压缩包算一项），单个文件不超过 100 MB，总大小不超过 200 MB。',
      ),
    ).toBeInTheDocument();
    expect(screen.getByText('压缩包内最多 10,000 个文件，解压后不超过 500 MB。')).toBeInTheDocument();
    expect(screen.getByTestId('file-input')).toHaveAttribute(
      'accept',
      expect.stringContaining('.zip,.rar,.7z,.html'),
    );
    expect(screen.getByTestId('file-input')).toHaveAttribute('multiple');
    expect(
      screen.getByText('文件夹或压缩包中的其他文件（如 LICENSE、源码）会保留，但仅供下载，不作为网页内容。'),
    ).toBeInTheDocument();
    expect((screen.getByTestId('folder-input') as HTMLInputElement).webkitdirectory).toBe(true);
    expect(submitButton()).toBeDisabled();
  });

  it('with a mouse says to drag files here or click', async () => {
    await openUpload();
    expect(screen.getByLabelText('拖拽上传区域')).toBeInTheDocument();
    expect(
      screen.getByText('支持上传 ZIP、RAR、7Z 压缩包，也可以直接拖入整个网站文件夹或多个文件。'),
    ).toBeInTheDocument();
    expect(screen.queryByText('点击选择网站文件、文件夹或压缩包')).not.toBeInTheDocument();
  });

  it('on a touch screen says to tap to choose files, where nothing can be dragged, and a tap opens the picker', async () => {
    const mediaQuery = window.matchMedia;
    vi.spyOn(window, 'matchMedia').mockImplementation((query) =>
      query === '(pointer: coarse)' ? { ...mediaQuery(query), matches: true } : mediaQuery(query),
    );
    fakeApi({ 'GET /config/public': ok(publicConfig), 'GET /projects/my': myProjects([]) });
    signIn(makeUser());
    renderApp('/upload');
    await screen.findByText('点击选择网站文件、文件夹或压缩包');
    expect(
      screen.getByText(
        '单次最多 20 项（整个文件夹或压缩包算一项），共不超过 10,000 个文件，单个文件不超过 100 MB',
      ),
    ).toBeInTheDocument();
    expect(
      screen.getByText('支持上传 ZIP、RAR、7Z 压缩包，也可以选择整个网站文件夹或多个文件。'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/拖到此处|拖入/)).not.toBeInTheDocument();
    expect(screen.queryByLabelText('拖拽上传区域')).not.toBeInTheDocument();

    const opened = vi.spyOn(screen.getByTestId('file-input'), 'click').mockImplementation(() => {});
    fireEvent.click(screen.getByLabelText('上传区域'));
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it('says in the picker that a whole folder or an archive is one item against the limit, and counts so', async () => {
    await openUpload();
    expect(
      screen.getByText(
        '或点击此区域选择文件；单次最多 20 项（整个文件夹或压缩包算一项），共不超过 10,000 个文件，单个文件不超过 100 MB',
      ),
    ).toBeInTheDocument();

    // A folder of 25 files is one item: taken whole.
    pick(
      'folder-input',
      Array.from({ length: 25 }, (_, i) => file(`site/page${i}.html`)),
    );
    expect(await screen.findByText('site/page24.html')).toBeInTheDocument();
    expect(screen.getByLabelText('已选择的文件').querySelectorAll('li')).toHaveLength(25);

    // With the folder, 19 loose files make 20 items (within); a 20th makes 21 (refused).
    pick(
      'file-input',
      Array.from({ length: 19 }, (_, i) => file(`extra${i}.html`)),
    );
    expect(await screen.findByText('extra18.html')).toBeInTheDocument();
    pick('file-input', [file('one-more.html')]);
    expect(
      await screen.findByText(
        /^文件数量超过限制。最多允许上传 20 个文件。可以改为选择整个文件夹（一个文件夹只算一项）/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('已选择的文件').querySelectorAll('li')).toHaveLength(44);
  });

  it('checks the project name and description', async () => {
    const { user } = await openUpload();
    await user.type(nameInput(), 'a');
    expect(await screen.findByText('项目名称至少需要2个字符')).toBeInTheDocument();
    await user.clear(nameInput());
    expect(await screen.findByText('请输入项目名称')).toBeInTheDocument();
    await user.type(nameInput(), '   ');
    expect(await screen.findByText('请输入项目名称')).toBeInTheDocument();
    await user.clear(nameInput());
    await user.click(nameInput());
    await user.paste('长'.repeat(51));
    expect(await screen.findByText('项目名称不能超过50个字符')).toBeInTheDocument();

    const description = screen.getByLabelText('项目描述');
    await user.click(description);
    await user.paste('字'.repeat(12));
    expect(screen.getByText('12/500')).toBeInTheDocument();
    await user.paste('字'.repeat(489));
    expect(await screen.findByText('项目描述不能超过500个字符')).toBeInTheDocument();
    expect(screen.getByText('501/500')).toBeInTheDocument();
  });

  it('asks for files when the chosen ones are all removed', async () => {
    const { user, api } = await openUpload();
    await user.type(nameInput(), '我的站点');
    pick('file-input', [file('index.html')]);
    await screen.findByText('index.html');
    await user.click(screen.getByLabelText('移除 index.html'));
    expect(await screen.findByText('请选择要上传的项目文件')).toBeInTheDocument();
    expect(submitButton()).toBeDisabled();
    expect(api.calls('POST /projects/upload')).toHaveLength(0);
  });

  it('lists a picked folder with relative paths, merges duplicates and shows the upload type', async () => {
    const { user } = await openUpload();
    const index = file('site/index.html', 30);
    pick('folder-input', [index, file('site/css/app.css', 20)]);
    const list = await screen.findByLabelText('已选择的文件');
    expect(within(list).getByText('site/index.html')).toBeInTheDocument();
    expect(within(list).getByText('site/css/app.css')).toBeInTheDocument();
    expect(screen.getByText('文件')).toBeInTheDocument();
    expect(screen.getByText('按目录结构原样发布这 2 个文件')).toBeInTheDocument();
    expect(submitButton()).toBeEnabled();

    // The same file again adds nothing.
    pick('file-input', [file('site/index.html', 30)]);
    await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(2));

    await user.click(button('清空'));
    expect(screen.queryByLabelText('已选择的文件')).not.toBeInTheDocument();
    pick('file-input', [file('site.zip', 40)]);
    expect(await screen.findByText('压缩包（ZIP）')).toBeInTheDocument();
    await user.click(screen.getByLabelText('移除 site.zip'));
    expect(screen.getByText('选择文件后自动识别')).toBeInTheDocument();
  });

  it('refuses server scripts, empty and too many files with the spec’s messages', async () => {
    await openUpload();
    pick('file-input', [file('server.php'), file('index.html'), file('LICENSE')]);
    expect(await screen.findByText('不接受可执行文件、安装程序或服务器端脚本')).toBeInTheDocument();
    expect(screen.getByText('涉及文件：server.php')).toBeInTheDocument();
    // Another type is kept, to be served as a download only.
    expect(screen.getByText('LICENSE')).toBeInTheDocument();

    pick('file-input', [file('empty.css', 0)]);
    expect(await screen.findByText('选择的文件无效或为空')).toBeInTheDocument();

    pick(
      'file-input',
      Array.from({ length: 20 }, (_, i) => file(`page${i}.html`)),
    );
    expect(
      await screen.findByText(
        /^文件数量超过限制。最多允许上传 20 个文件。可以改为选择整个文件夹（一个文件夹只算一项）/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('已选择的文件').querySelectorAll('li')).toHaveLength(2);
  });

  it('takes dropped files; an empty drop says 拖拽的文件无效或为空, a failing one 处理拖拽内容失败，请重试', async () => {
    await openUpload();
    const zone = screen.getByLabelText('拖拽上传区域');
    const entryOf = (f: File) => ({
      name: f.name,
      isFile: true,
      isDirectory: false,
      file: (cb: (x: File) => void) => cb(f),
    });
    const item = (f: File, entry: unknown) => ({
      kind: 'file',
      getAsFile: () => f,
      webkitGetAsEntry: () => entry,
    });

    const page = file('index.html', 12);
    fireEvent.drop(zone, { dataTransfer: { items: [item(page, entryOf(page))], files: [page] } });
    expect(await screen.findByText('index.html')).toBeInTheDocument();

    fireEvent.drop(zone, { dataTransfer: { items: [], files: [] } });
    expect(await screen.findByText('拖拽的文件无效或为空')).toBeInTheDocument();

    const broken = {
      name: 'site',
      isFile: false,
      isDirectory: true,
      createReader: () => ({
        readEntries: (_ok: unknown, no: (e: Error) => void) => no(new Error('denied')),
      }),
    };
    fireEvent.drop(zone, { dataTransfer: { items: [item(file('site', 0), broken)], files: [] } });
    expect(await screen.findByText('处理拖拽内容失败，请重试')).toBeInTheDocument();
  });

  it('uploads with progress, says 文件上传成功！ and goes to my projects', async () => {
    let release: () => void = () => {};
    let sent: FakeRequest | undefined;
    const { user, router, api } = await openUpload({
      'POST /projects/upload': async (request) => {
        sent = request;
        request.config.onUploadProgress?.({ loaded: 50, total: 100, bytes: 50, lengthComputable: true });
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        const files = [
          {
            file_name: 'index.html',
            file_type: 'html',
            file_size: 16,
            mime_type: 'text/html',
            download_only: false,
          },
          {
            file_name: 'LICENSE',
            file_type: '',
            file_size: 16,
            mime_type: 'application/octet-stream',
            download_only: true,
          },
        ];
        return {
          status: 201,
          body: { success: true, data: { project: { ...makeProject(), files } }, message: '文件上传成功！' },
        };
      },
    });
    await user.type(nameInput(), '  我的站点  ');
    await user.type(screen.getByLabelText('项目描述'), '一个静态网站');
    pick('folder-input', [file('site/index.html'), file('site/css/app.css')]);
    await screen.findByText('site/css/app.css');
    // A site with a client-side router asks for the SPA fallback with its upload.
    await user.click(screen.getByRole('switch', { name: '单页应用回退' }));
    await user.click(submitButton());

    expect(await findButton('上传中...')).toBeInTheDocument();
    expect(await screen.findByText('50%')).toBeInTheDocument();
    expect(document.querySelector('.upload-progress [role="progressbar"]')).not.toBeNull();
    const body = sent?.body as FormData;
    expect(body.get('project_name')).toBe('我的站点');
    expect(body.get('description')).toBe('一个静态网站');
    expect(body.get('upload_type')).toBe('files');
    expect(body.get('spa_fallback')).toBe('true');
    expect((body.getAll('files') as File[]).map((f) => f.name)).toEqual([
      'site/index.html',
      'site/css/app.css',
    ]);
    // No 10 s limit on uploads.
    expect(sent?.config.timeout).toBe(0);

    release();
    expect(await screen.findByText('文件上传成功！')).toBeInTheDocument();
    expect(await screen.findByText('1 个文件仅供下载，不作为网页内容')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects'));
    await waitFor(() => expect(api.calls('GET /projects/my').length).toBeGreaterThan(0));
  });

  it('goes to the new project’s detail right after an upload with usability findings, to fix them', async () => {
    const project = makeProject({
      id: 31,
      name: 'Vue 作业',
      usability_findings: [
        {
          severity: 'low',
          category: 'usability',
          kind: 'missing_file',
          message: '引用的文件不在上传内容中：“img/logo.png”，打开页面时会加载失败',
          file: 'index.html',
          line: 3,
          excerpt: '<img src="img/logo.png">',
        },
      ],
    });
    const { user, router } = await openUpload({
      'POST /projects/upload': ok({ project }, '文件上传成功！'),
      'GET /projects/31': ok({ project }),
    });
    await user.type(nameInput(), 'Vue 作业');
    pick('file-input', [file('index.html')]);
    // The dropzone adds picked files asynchronously (addFiles reads them); until the list shows
    // them the submit button is disabled and a click does nothing.
    await screen.findByText('index.html');
    await user.click(submitButton());
    expect(await screen.findByText('可用性问题：1 个，请查看并修改')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects/31'));
    expect(await screen.findByText('可用性问题（1）')).toBeInTheDocument();
    expect(screen.getByText(/修改方法：把缺少的文件一起上传/)).toBeInTheDocument();
  });

  it('goes to the list after an upload whose only findings are notes (root-absolute links still load)', async () => {
    const project = makeProject({
      id: 32,
      name: 'Vite 应用',
      usability_findings: [
        {
          severity: 'info',
          category: 'usability',
          kind: 'root_absolute_link',
          message: '以 / 开头的地址“/assets/app.js”：…',
          file: 'index.html',
          line: 5,
          excerpt: '<script type="module" src="/assets/app.js"></script>',
        },
      ],
    });
    const { user, router } = await openUpload({ 'POST /projects/upload': ok({ project }, '文件上传成功！') });
    await user.type(nameInput(), 'Vite 应用');
    pick('file-input', [file('index.html')]);
    // The dropzone adds picked files asynchronously (addFiles reads them); until the list shows
    // them the submit button is disabled and a click does nothing.
    await screen.findByText('index.html');
    await user.click(submitButton());
    expect(await screen.findByText('文件上传成功！')).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.pathname).toBe('/projects'));
    expect(screen.queryByText(/请查看并修改/)).toBeNull();
  });

  it('shows the server’s field errors on their fields', async () => {
    const { user } = await openUpload({
      'POST /projects/upload': fail(400, '项目名称至少需要2个字符', {
        project_name: '项目名称至少需要2个字符',
        files: '文件 "index.html" 为空文件',
      }),
    });
    await user.type(nameInput(), '我的站点');
    pick('file-input', [file('index.html')]);
    await screen.findByText('index.html');
    await user.click(submitButton());
    expect(await screen.findByText('项目名称至少需要2个字符')).toBeInTheDocument();
    expect(screen.getByText('文件 "index.html" 为空文件')).toBeInTheDocument();
    expect(screen.queryByRole('alert', { name: /上传失败/ })).not.toBeInTheDocument();
  });

  it('shows the server message, or 上传失败，请稍后重试 without one', async () => {
    const { user, api } = await openUpload({
      'POST /projects/upload': fail(413, '上传内容总大小超过限制。最大允许：200 MB'),
    });
    await user.type(nameInput(), '我的站点');
    pick('file-input', [file('index.html')]);
    await screen.findByText('index.html');
    await user.click(submitButton());
    expect(await screen.findByText('上传内容总大小超过限制。最大允许：200 MB')).toBeInTheDocument();

    api.on('POST /projects/upload', { status: 502, body: '<html>bad gateway</html>' });
    await user.click(submitButton());
    expect(await screen.findByText('上传失败，请稍后重试')).toBeInTheDocument();
  });

  it('brings the failure into view: the message sits above the viewport once the page scrolled to the button', async () => {
    const scrolled: Element[] = [];
    const original = Element.prototype.scrollIntoView;
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this);
    };
    try {
      const { user } = await openUpload({ 'POST /projects/upload': fail(507, '服务器存储空间不足') });
      await user.type(nameInput(), '我的站点');
      pick('file-input', [file('index.html')]);
      await screen.findByText('index.html');
      await user.click(submitButton());
      const alert = (await screen.findByText('服务器存储空间不足')).closest('.ant-alert');
      expect(alert).not.toBeNull();
      await waitFor(() => expect(scrolled).toContain(alert));
    } finally {
      Element.prototype.scrollIntoView = original;
    }
  });

  it('sends an Idempotency-Key that stays the same when the same files and fields are sent again, and changes with either', async () => {
    const keys: unknown[] = [];
    const { user } = await openUpload({
      'POST /projects/upload': (request) => {
        keys.push(request.headers.get('Idempotency-Key'));
        return { status: 502, body: '<html>bad gateway</html>' };
      },
    });
    await user.type(nameInput(), '我的站点');
    pick('file-input', [file('index.html')]);
    await screen.findByText('index.html');
    await user.click(submitButton());
    await screen.findByText('上传失败，请稍后重试');
    await user.click(submitButton());
    await waitFor(() => expect(keys).toHaveLength(2));
    expect(keys[0]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    pick('file-input', [file('about.html')]);
    await screen.findByText('about.html');
    await user.click(submitButton());
    await waitFor(() => expect(keys).toHaveLength(3));
    expect(keys[2]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[2]).not.toBe(keys[0]);
    // Another name with the same files is another upload (the server refuses a key sent again with
    // other fields); sending that again keeps its key.
    await user.type(nameInput(), '二号');
    await user.click(submitButton());
    await waitFor(() => expect(keys).toHaveLength(4));
    expect(keys[3]).toMatch(/^web-[0-9a-f]{32}$/);
    expect(keys[3]).not.toBe(keys[2]);
    await user.click(submitButton());
    await waitFor(() => expect(keys).toHaveLength(5));
    expect(keys[4]).toBe(keys[3]);
  });

  it('cancel goes to the dashboard; during an upload it asks first and stops the upload', async () => {
    let sent: FakeRequest | undefined;
    const { user, router } = await openUpload({
      'POST /projects/upload': (request) => {
        sent = request;
        return new Promise(() => {});
      },
      'GET /projects/my': myProjects([]),
    });
    await user.type(nameInput(), '我的站点');
    pick('file-input', [file('index.html')]);
    await screen.findByText('index.html');
    await user.click(submitButton());
    await findButton('上传中...');

    await user.click(button('取消'));
    expect(
      await screen.findByText('正在上传中，确定要取消吗？', { selector: '.ant-modal-confirm-title' }),
    ).toBeInTheDocument();
    await user.click(button('继续上传'));
    expect(router.state.location.pathname).toBe('/upload');
    expect(sent?.config.signal?.aborted).toBe(false);

    await user.click(button('取消'));
    // (the first dialog may still be closing; the new one is the last)
    const confirms = await screen.findAllByText('确定', { selector: 'button span' });
    await user.click(confirms.at(-1)?.closest('button') as HTMLButtonElement);
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(sent?.config.signal?.aborted).toBe(true);
  });

  it('cancel without an upload goes straight to the dashboard', async () => {
    const { user, router } = await openUpload();
    await user.click(button('取消'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
  });

  it('shows the address of a site name only while the name is free, never one another site has', async () => {
    const { user } = await openUpload({
      'GET /projects/site-name': (request) => {
        const name = request.params?.name as string | undefined;
        if (name === 'wodediyigewangzhan')
          return ok({ name, available: false, message: '站点名“wodediyigewangzhan”已被使用，请换一个' });
        return ok({ name: name ?? null, available: true, message: null });
      },
    });
    const field = screen.getByLabelText('站点名');
    await user.type(field, 'wodediyigewangzhan');
    expect(await screen.findByText('站点名“wodediyigewangzhan”已被使用，请换一个')).toBeInTheDocument();
    expect(screen.queryByText(/访问地址：/)).not.toBeInTheDocument();
    await user.clear(field);
    await user.type(field, 'my-own-site');
    expect(await screen.findByText(/访问地址：/)).toHaveTextContent('my-own-site');
  });
});
