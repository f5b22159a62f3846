import { describe, expect, it } from 'vitest';
import { type CanaryLeak, emptyObservations } from '../render/render-page.js';
import { judgeRequest, sensitiveInUrl } from './flows.js';
import { runtimeFindings } from './runtime.js';
import { SERVICES, serviceAccepts, serviceOf, serviceOfUrl } from './services.js';
import { exfilEndpoint, isFormService, isKnownEmbed, isKnownService } from './urls.js';

const get = (url: string, resourceType = 'script') => ({ method: 'GET', url, resourceType });
const post = (url: string, resourceType = 'fetch') => ({ method: 'POST', url, resourceType });

describe('the services descriptor', () => {
  it('names each service once per domain and path, with a purpose and what it receives', () => {
    const seen = new Set<string>();
    for (const service of SERVICES) {
      expect(service.domains.length).toBeGreaterThan(0);
      for (const d of service.domains) {
        expect(d).toBe(d.toLowerCase());
        const key = `${d}${service.path ?? ''}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });

  it('finds the service of a host and its subdomains; the most specific domain and path win', () => {
    expect(serviceOf('cdn.jsdelivr.net')?.name).toBe('jsDelivr');
    expect(serviceOf('FONTS.GSTATIC.COM')?.purpose).toBe('fonts');
    expect(serviceOf('hm.baidu.com')?.purpose).toBe('analytics');
    expect(serviceOf('baidu.com')).toBeNull();
    expect(serviceOf('docs.google.com')?.name).toBe('Google Forms');
    expect(serviceOf('www.google.com')?.purpose).toBe('map');
    expect(serviceOf('api.telegram.org', '/bot123:abc/sendMessage')?.receives).toBe('drop');
    expect(serviceOf('api.telegram.org', '/file/x')).toBeNull();
    expect(serviceOf('discord.com', '/api/webhooks/1/x')?.receives).toBe('drop');
    expect(serviceOf('discord.com', '/invite/x')).toBeNull();
    expect(serviceOf('jsdelivr.net.evil.example')).toBeNull();
    expect(serviceOfUrl('//abc.ngrok-free.app/x')?.purpose).toBe('tunnel');
    expect(serviceOfUrl('not a url')).toBeNull();
  });

  it('says what each service may receive: a message to a form service, a password only to a backend', () => {
    const formspree = serviceOf('formspree.io');
    const googleForms = serviceOf('docs.google.com');
    const firebase = serviceOf('identitytoolkit.googleapis.com');
    expect(serviceAccepts(formspree, 'message')).toBe(true);
    expect(serviceAccepts(googleForms, 'credential')).toBe(false);
    expect(serviceAccepts(firebase, 'credential')).toBe(true);
    expect(serviceAccepts(firebase, 'card')).toBe(false);
    expect(serviceAccepts(serviceOf('hm.baidu.com'), 'usage')).toBe(true);
    expect(serviceAccepts(serviceOf('cdn.jsdelivr.net'), 'usage')).toBe(false);
    expect(serviceAccepts(serviceOf('pastebin.com'), 'message')).toBe(false);
    expect(serviceAccepts(null, 'usage')).toBe(false);
  });

  it("answers the static check's questions from the same list", () => {
    expect(isKnownService('cdn.bootcdn.net')).toBe(true);
    expect(isKnownService('formspree.io')).toBe(false);
    expect(isFormService('formspree.io')).toBe(true);
    expect(isFormService('script.google.com')).toBe(true);
    expect(isKnownService('dev.visualwebsiteoptimizer.com')).toBe(true);
    expect(isKnownService('cdn.segment.com')).toBe(true);
    expect(isKnownEmbed('player.bilibili.com')).toBe(true);
    expect(isKnownService('webhook.site')).toBe(false);
    expect(exfilEndpoint('https://webhook.site/abc', 'webhook.site')).toBe('内网穿透或请求收集服务');
    expect(exfilEndpoint('https://pastebin.com/api/api_post.php', 'pastebin.com')).toBe('粘贴板网站');
    expect(exfilEndpoint('http://203.0.113.9/c', '203.0.113.9')).toBe('IP 地址');
    expect(exfilEndpoint('https://cdn.jsdelivr.net/x.js', 'cdn.jsdelivr.net')).toBeNull();
  });
});

describe('judging a request by what it carries and where it goes', () => {
  it('loads from well-known services and plain assets are information', () => {
    expect(judgeRequest(get('https://cdn.jsdelivr.net/npm/bootstrap@5/dist/js/bootstrap.min.js')).rule).toBe(
      'runtime.service',
    );
    expect(
      judgeRequest(get('https://fonts.googleapis.com/css2?family=Noto+Sans+SC', 'stylesheet')).rule,
    ).toBe('runtime.service');
    expect(judgeRequest(get('https://hm.baidu.com/hm.js?0123456789abcdef0123456789abcdef')).rule).toBe(
      'runtime.service',
    );
    expect(judgeRequest(get('https://www.youtube.com/embed/abc', 'document')).rule).toBe('runtime.service');
    expect(judgeRequest(get('https://img.example-photos.com/a.jpg?w=300', 'image')).rule).toBe(
      'runtime.external-asset',
    );
    expect(judgeRequest(get('https://lib.example-cdn.net/app.js')).rule).toBe('runtime.external-request');
  });

  it('usage to analytics and messages to form services are what they are for', () => {
    expect(judgeRequest(post('https://region1.google-analytics.com/g/collect?v=2', 'ping')).rule).toBe(
      'runtime.service',
    );
    expect(judgeRequest(post('https://formspree.io/f/abcd')).rule).toBe('runtime.service');
  });

  it('data to an unknown host is worth a look: a body, a beacon, a socket, a long encoded query', () => {
    expect(judgeRequest(post('https://collect.example-stats.net/c')).rule).toBe('runtime.data-sent');
    expect(
      judgeRequest({ method: 'WEBSOCKET', url: 'wss://x.example.net/', resourceType: 'websocket' }).rule,
    ).toBe('runtime.data-sent');
    expect(
      judgeRequest(
        get(`https://px.example.net/p.gif?d=${Buffer.from('a'.repeat(40)).toString('base64')}`, 'image'),
      ).rule,
    ).toBe('runtime.data-sent');
    expect(judgeRequest(post('https://cdn.jsdelivr.net/x')).rule).toBe('runtime.data-sent');
  });

  it('a drop or sensitive data to a host not meant to get it is almost certainly hostile', () => {
    expect(judgeRequest(get('https://api.telegram.org/bot1:x/sendMessage?text=hi', 'fetch')).rule).toBe(
      'runtime.data-dropped',
    );
    expect(judgeRequest(post('http://203.0.113.7/log')).rule).toBe('runtime.data-dropped');
    expect(judgeRequest(get('http://203.0.113.7/pic.png', 'image')).rule).toBe('runtime.external-asset');
    const j = judgeRequest(
      get('https://docs.google.com/forms/d/e/x/formResponse?user=a&password=hunter2', 'fetch'),
    );
    expect(j).toMatchObject({ rule: 'runtime.sensitive-sent', carries: 'credential' });
    expect(
      judgeRequest(get('https://identitytoolkit.googleapis.com/v1/accounts:signIn?password=x', 'fetch')).rule,
    ).toBe('runtime.service');
    expect(sensitiveInUrl(new URL('https://a.example/?n=6222020200112233445&x='))).toBe(null);
    expect(sensitiveInUrl(new URL('https://a.example/?n=4111111111111111'))).toBe('card');
    expect(sensitiveInUrl(new URL('https://a.example/?n=11010519491231002X'))).toBe('id-number');
    expect(sensitiveInUrl(new URL('https://a.example/?sms_code=123456'))).toBe('sms-code');
    expect(sensitiveInUrl(new URL('https://a.example/?password='))).toBe(null);
  });

  it('the render: one finding per host at its worst; repeated queries to one host are split sends', () => {
    const obs = {
      ...emptyObservations(),
      externalRequests: [
        {
          ...get('https://cdn.jsdelivr.net/npm/jquery/dist/jquery.min.js'),
          host: 'cdn.jsdelivr.net',
          allowed: false,
        },
        { ...get('https://fonts.gstatic.com/s/a.woff2', 'font'), host: 'fonts.gstatic.com', allowed: false },
        ...['a', 'b', 'c'].map((k) => ({
          ...get(`https://k.example-log.net/p.gif?k=${k}`, 'image'),
          host: 'k.example-log.net',
          allowed: false,
        })),
      ],
    };
    const found = runtimeFindings(obs, false, { hosts: new Set(['k.example-log.net']), hidesCode: false });
    const by = (host: string) => found.find((f) => f.message.includes(host));
    expect(by('cdn.jsdelivr.net')).toMatchObject({ rule: 'runtime.service', severity: 'info' });
    expect(by('cdn.jsdelivr.net')?.message).toContain('公共 CDN jsDelivr');
    expect(by('fonts.gstatic.com')).toMatchObject({ rule: 'runtime.service', severity: 'info' });
    expect(by('k.example-log.net')).toMatchObject({ rule: 'runtime.data-sent', severity: 'medium' });
    // The same sends, to a host no file names (built at run time) or from code the files hide: high.
    for (const seen of [
      { hosts: new Set<string>(), hidesCode: false },
      { hosts: new Set(['k.example-log.net']), hidesCode: true },
    ]) {
      const hidden = runtimeFindings(obs, false, seen).find((f) => f.message.includes('k.example-log.net'));
      expect(hidden).toMatchObject({ rule: 'runtime.data-hidden', severity: 'high' });
    }
  });

  it('typed values that are no secret: ordinary to a form service or a named host, hostile when hidden', () => {
    const leak = (over: Partial<CanaryLeak>): CanaryLeak => ({
      kind: 'text',
      field: 'message',
      host: 'api.club-example.org',
      url: 'https://api.club-example.org/m',
      via: 'fetch',
      encoding: 'plain',
      external: true,
      profile: 'desktop',
      ...over,
    });
    const named = { hosts: new Set(['api.club-example.org', 'log.example-k.top']), hidesCode: false };
    const judge = (l: CanaryLeak, seen = named) =>
      runtimeFindings({ ...emptyObservations(), leaks: [l] }, false, seen).find(
        (f) => f.kind === 'runtime_canary',
      );
    // A message to the site's own backend on a host its files name, or to Formspree: information.
    expect(judge(leak({}))).toMatchObject({ rule: 'runtime.canary-contact', severity: 'info' });
    expect(judge(leak({ host: 'formspree.io' }), { hosts: new Set(), hidesCode: false })?.rule).toBe(
      'runtime.canary-contact',
    );
    // A password is a theft wherever it goes.
    expect(judge(leak({ kind: 'password' }))).toMatchObject({
      rule: 'runtime.canary-leak',
      severity: 'high',
    });
    // Keys pressed outside any field, a value sent key by key or in a logger's batches: keystrokes.
    for (const l of [
      leak({ kind: 'keystrokes', host: 'log.example-k.top' }),
      leak({ encoding: 'fragment', host: 'log.example-k.top' }),
      leak({ encoding: 'keys', host: 'log.example-k.top' }),
    ]) {
      const f = judge(l);
      expect(f).toMatchObject({ rule: 'runtime.canary-hidden', severity: 'high' });
      expect(f?.message).toContain('键盘记录');
    }
    // A side channel: a DNS-prefetch host, a stylesheet's url().
    expect(judge(leak({ kind: 'phone', via: 'dns-prefetch' }))?.message).toContain('DNS 预解析');
    expect(judge(leak({ via: 'css' }))?.rule).toBe('runtime.canary-hidden');
    // A host no file names, or code the files hide: a hidden destination.
    expect(judge(leak({ host: 'x.elsewhere.top' }))?.message).toContain('站点文件里看不到');
    expect(judge(leak({}), { ...named, hidesCode: true })?.rule).toBe('runtime.canary-hidden');
    // The site's own host: information.
    expect(judge(leak({ external: false, kind: 'keystrokes' }))?.rule).toBe('runtime.canary-own');
  });
});
