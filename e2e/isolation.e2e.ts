/**
 * A live site cannot read the signed-in visitor's token, in every way sites can be served
 * (docs/decisions/serving.md "Serving sites"): the suite's own server (the default: a sites port), and
 * servers of this file's own with SITES_PORT=0 (one port, sandboxed), SITES_ORIGIN, and
 * SITES_ORIGIN with SITES_SUBDOMAINS. Chromium resolves every *.localhost name to loopback, so
 * sites.localhost and p{id}.sites.localhost need no DNS.
 */
import {
  type APIRequestContext,
  type Browser,
  expect,
  type PlaywrightWorkerArgs,
  test,
} from '@playwright/test';
import { freePort, startServer, stopServer } from './child-server';
import { apiToken, createAccount, signIn } from './helpers';
import { review, uploadSite } from './site-helpers';

const PROBE = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>探测</title></head>
<body><h1>安全探测</h1><pre id="result">运行中</pre>
<script>
  const found = {};
  let token = null;
  try { token = window.localStorage.getItem('sitehall.token'); found.storage = token ? 'token:' + token : 'readable-empty'; }
  catch (e) { found.storage = 'blocked'; }
  try { found.cookie = document.cookie === '' ? 'empty' : 'cookie:' + document.cookie; }
  catch (e) { found.cookie = 'blocked'; }
  fetch('/api/auth/profile', { headers: token ? { Authorization: 'Bearer ' + token } : {} })
    .then((r) => { found.profile = String(r.status); })
    .catch(() => { found.profile = 'failed'; })
    .finally(() => {
      const text = JSON.stringify(found);
      document.getElementById('result').textContent = text;
      document.title = text;
    });
</script></body></html>`;

type Mode = 'sites-port' | 'sandboxed' | 'sites-origin' | 'subdomains';

async function probeTheToken(
  browser: Browser,
  playwright: PlaywrightWorkerArgs['playwright'],
  baseURL: string,
  mode: Mode,
): Promise<void> {
  const request: APIRequestContext = await playwright.request.newContext({ baseURL });
  const context = await browser.newContext({ baseURL });
  try {
    const owner = await createAccount(request, 'probe');
    const ownerToken = await apiToken(request, owner.username, owner.password);
    const site = await uploadSite(request, ownerToken, `安全探测-${Date.now().toString(36).slice(-4)}`, {
      'index.html': PROBE,
    });
    await review(request, site.id, 'approve');

    // The visitor signs in with remember-me: the app keeps the token in localStorage.
    const page = await context.newPage();
    const visitor = await createAccount(request, 'visitor');
    await signIn(page, visitor.username, visitor.password, { remember: true });
    await expect(page).toHaveURL(/\/dashboard$/);
    const appToken = await page.evaluate(() => localStorage.getItem('sitehall.token'));
    expect(appToken).toBeTruthy();

    await page.goto(`/public?search=${encodeURIComponent(site.name)}`);
    const opened = context.waitForEvent('page');
    await page.getByRole('link', { name: `访问 ${site.name}` }).click();
    const sitePage = await opened;
    const result = sitePage.locator('#result');
    await expect(result).not.toHaveText('运行中');
    const found = JSON.parse((await result.textContent()) ?? '{}') as Record<string, string>;
    expect(JSON.stringify(found)).not.toContain(appToken as string);

    const appOrigin = new URL(baseURL).origin;
    const siteOrigin = new URL(sitePage.url()).origin;
    if (mode === 'sandboxed') {
      // An opaque origin: storage throws, there is no cookie, the API call carries no session.
      expect(siteOrigin).toBe(appOrigin);
      expect(found.storage).toBe('blocked');
      expect(['blocked', 'empty']).toContain(found.cookie);
      expect(['failed', '401']).toContain(found.profile);
    } else {
      // An origin of its own: its storage works and is empty, and there is no API to call.
      expect(siteOrigin).not.toBe(appOrigin);
      if (mode === 'subdomains') expect(new URL(siteOrigin).hostname).toBe(`p${site.id}.sites.localhost`);
      expect(found.storage).toBe('readable-empty');
      expect(found.cookie).toBe('empty');
      expect(found.profile).toBe('404');
    }

    // The same page opened by its address on the app behaves the same way.
    await sitePage.goto(`${baseURL}/sites/${site.id}/`);
    await expect(sitePage.locator('#result')).toHaveText(
      mode === 'sandboxed' ? /"storage":"blocked"/ : /"storage":"readable-empty"/,
    );
    // The visitor's own session is untouched.
    expect(await page.evaluate(() => localStorage.getItem('sitehall.token'))).toBe(appToken);
  } finally {
    await context.close();
    await request.dispose();
  }
}

test('a live site cannot read the visitor’s token: the default sites port', async ({
  browser,
  playwright,
  baseURL,
}) => {
  await probeTheToken(browser, playwright, baseURL!, 'sites-port');
});

for (const mode of ['sandboxed', 'sites-origin', 'subdomains'] as const) {
  test(`a live site cannot read the visitor’s token: ${mode}`, async ({ browser, playwright }) => {
    const port = await freePort();
    const sitesOrigin = `http://sites.localhost:${port}`;
    const env: Record<string, string> =
      mode === 'sandboxed'
        ? { SITES_PORT: '0' }
        : { SITES_ORIGIN: sitesOrigin, SITES_SUBDOMAINS: mode === 'subdomains' ? 'true' : 'false' };
    const server = await startServer(port, env);
    try {
      await probeTheToken(browser, playwright, `http://127.0.0.1:${port}`, mode);
    } finally {
      await stopServer(server);
    }
  });
}
