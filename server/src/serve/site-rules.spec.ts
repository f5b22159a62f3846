import { describe, expect, it } from 'vitest';
import {
  compileSiteRules,
  matchHeaderRules,
  matchRedirect,
  parseHeaders,
  parseRedirects,
  SITE_RULES_LIMITS,
  SiteRulesError,
  withSiteHeaders,
} from './site-rules.js';

function refusal(run: () => unknown): SiteRulesError {
  try {
    run();
  } catch (err) {
    if (err instanceof SiteRulesError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('parseRedirects', () => {
  it('reads Netlify’s lines: comments, default 301, forced rules, inline comments', () => {
    const rules = parseRedirects('# top\n\n/a /b\n/c  /d\t302!  # moved\n/e/* /f/:splat 200\n');
    expect(rules.map((r) => [r.to, r.status, r.force])).toEqual([
      ['/b', 301, false],
      ['/d', 302, true],
      ['/f/:splat', 200, false],
    ]);
  });

  it('names the line of each mistake in Chinese', () => {
    expect(refusal(() => parseRedirects('/a /b\n\n/only')).message).toBe(
      '_redirects 第 3 行：每条规则至少要有来源路径和目标两项，例如 “/old /new 301”',
    );
    expect(refusal(() => parseRedirects('/a /b 418')).line).toBe(1);
    expect(refusal(() => parseRedirects('/a /:name 301')).message).toMatch(/:name/);
    expect(refusal(() => parseRedirects('/a /:splat 301')).message).toMatch(/:splat/);
    expect(refusal(() => parseRedirects('/store id=:id /blog/:id 301')).message).toMatch(/查询参数/);
    expect(refusal(() => parseRedirects('/a /b 302 Country=cn')).message).toMatch(/条件/);
    expect(refusal(() => parseRedirects('https://old.example/* /b 301')).message).toMatch(/域名/);
    expect(refusal(() => parseRedirects('/a /../etc 301')).message).toMatch(/站内路径/);
  });

  it('refuses off-site targets whose origin a request could choose (open redirects)', () => {
    for (const line of [
      '/go/:host https://:host/ 302',
      '/go/* https://:splat 302',
      '/go/* https://a.example:splat/ 302',
      '/go/* https://user@a.example/ 302',
      '/go/* //evil.example/:splat 302',
    ]) {
      expect(() => parseRedirects(line), line).toThrow(SiteRulesError);
    }
    // A fixed origin with the path filled in is the site's own choice.
    expect(parseRedirects('/go/* https://docs.example.com/:splat 302')).toHaveLength(1);
  });

  it('keeps an off-site target on its origin whatever the splat holds', () => {
    const rules = compileSiteRules({ redirects: '/go/* https://docs.example.com/:splat 302' })!;
    for (const path of ['go/@evil.example', 'go/..', 'go/a/../../x', 'go/%2F%2Fevil']) {
      const m = matchRedirect(rules, path, '', false);
      if (m?.kind === 'redirect') expect(new URL(m.location).origin, path).toBe('https://docs.example.com');
    }
  });

  it('refuses huge files, too many rules, long lines and control characters', () => {
    expect(refusal(() => parseRedirects('/a /b\n'.repeat(20_000))).message).toMatch(/文件太大/);
    expect(refusal(() => parseRedirects('/a /b\n'.repeat(SITE_RULES_LIMITS.maxRules + 1))).line).toBe(
      SITE_RULES_LIMITS.maxRules + 1,
    );
    expect(refusal(() => parseRedirects(`/a /${'b'.repeat(3000)}`)).message).toMatch(/太长/);
    expect(refusal(() => parseRedirects('/a /b\u0000 301')).message).toMatch(/控制字符/);
  });

  it('takes no regular expression from the file: a pattern that would backtrack is refused', () => {
    expect(() => parseRedirects('/(a+)+$ /b 301')).not.toThrow();
    // It is a literal segment, matched by string comparison only.
    const rules = compileSiteRules({ redirects: '/(a+)+$ /b 301' })!;
    expect(matchRedirect(rules, 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '', false)).toBeNull();
    expect(matchRedirect(rules, '(a+)+$', '', false)).toMatchObject({ kind: 'redirect' });
    expect(() => parseRedirects('/a*/* /b 301')).toThrow(/\* 只能/);
  });
});

describe('matchRedirect', () => {
  const rules = compileSiteRules({
    redirects: [
      '/blog/:year/:slug /posts/:year/:slug 301',
      '/docs/* /manual/:splat 302',
      '/ /home.html 200',
      '/old/ /new/ 301',
      '/q /r?x=1 302',
    ].join('\n'),
  })!;

  it('fills placeholders and the splat, and keeps the query unless the target has one', () => {
    expect(matchRedirect(rules, 'blog/2020/hi', '?a=1', false)).toEqual({
      kind: 'redirect',
      status: 301,
      location: './../../posts/2020/hi?a=1',
    });
    expect(matchRedirect(rules, 'docs/', '', false)).toMatchObject({ location: './../manual/' });
    expect(matchRedirect(rules, 'q', '?z=2', false)).toMatchObject({ location: './r?x=1' });
  });

  it('matches with or without a trailing slash, and not a longer or shorter path', () => {
    expect(matchRedirect(rules, 'old', '', false)).toMatchObject({ status: 301 });
    expect(matchRedirect(rules, 'old/', '', false)).toMatchObject({ status: 301 });
    expect(matchRedirect(rules, 'blog/2020', '', false)).toBeNull();
    expect(matchRedirect(rules, 'blog/2020/a/b', '', false)).toBeNull();
  });

  it('percent-encodes what it puts into a location', () => {
    expect(matchRedirect(rules, 'docs/a b/中文', '', false)).toMatchObject({
      location: './../../manual/a%20b/%E4%B8%AD%E6%96%87',
    });
    // A '%' or '?' of the path asked is a character, never an escape or a query.
    expect(matchRedirect(rules, 'docs/%41?b', '', false)).toMatchObject({
      location: './../manual/%2541%3Fb',
    });
  });

  it('rewrites to a decoded site path', () => {
    expect(matchRedirect(rules, '', '', false)).toEqual({
      kind: 'rewrite',
      status: 200,
      path: 'home.html',
      requestPath: '',
    });
  });
});

describe('parseHeaders', () => {
  it('reads paths and their indented headers, lower-casing names', () => {
    const rules = parseHeaders(
      '/*\n  X-Frame-Options: DENY\n\n# c\n/assets/*\n\tCache-Control: max-age=60\n',
    );
    expect(rules.map((r) => r.headers)).toEqual([
      [['x-frame-options', 'DENY']],
      [['cache-control', 'max-age=60']],
    ]);
  });

  it('takes one media type with its parameters', () => {
    for (const type of [
      'application/wasm',
      'text/plain; charset=utf-8',
      'text/csv;charset="utf-8"; header=present',
    ])
      expect(parseHeaders(`/data\n  Content-Type: ${type}`)[0]!.headers).toEqual([['content-type', type]]);
  });

  it('allows only the listed headers, and only safe values', () => {
    for (const [text, reason] of [
      ['/*\n  Set-Cookie: a=1', /Set-Cookie/],
      ['/*\n  Location: https://evil.example', /Location/],
      ['/*\n  Access-Control-Allow-Credentials: true', /Access-Control-Allow-Credentials/],
      ['/*\n  X-Content-Type-Options: none', /X-Content-Type-Options/],
      ['/*\n  Content-Type: image/svg+xml', /Content-Type/],
      // Any XML type can carry XHTML with scripts (an outside review: rss+xml and vnd.foo+xml passed).
      ['/*\n  Content-Type: application/rss+xml', /Content-Type/],
      ['/*\n  Content-Type: application/vnd.foo+xml; charset=utf-8', /Content-Type/],
      ['/*\n  Content-Type: text/x-foo+xml', /Content-Type/],
      ['/*\n  Content-Type: text/html; charset=utf-8', /Content-Type/],
      // Every JavaScript type a browser runs from <script src> (nosniff or not), not only the usual two.
      ['/notes.txt\n  Content-Type: text/x-javascript', /Content-Type/],
      ['/LICENSE\n  Content-Type: application/x-javascript', /Content-Type/],
      ['/a.bin\n  Content-Type: application/x-ecmascript', /Content-Type/],
      ['/a.bin\n  Content-Type: text/x-ecmascript', /Content-Type/],
      ['/a.bin\n  Content-Type: text/jscript', /Content-Type/],
      ['/a.bin\n  Content-Type: text/livescript', /Content-Type/],
      ['/a.bin\n  Content-Type: TEXT/JavaScript1.5', /Content-Type/],
      // A second type after a comma is the one Chromium takes: a text file would be a page.
      ['/*\n  Content-Type: text/plain; charset=utf-8; x=,text/html', /Content-Type/],
      ['/*\n  Content-Type: application/pdf, text/html', /Content-Type/],
      ['/*\n  Content-Type: text/plain; x="a,text/html"', /Content-Type/],
      ['/*\n  Content-Encoding: compress', /content-encoding/],
      ['/*\n  Cross-Origin-Opener-Policy: anything', /cross-origin-opener-policy/],
      ['/*\n  Cache-Control: a\u0001b', /控制字符/],
      ['/*\n  Cache-Control: 中文', /不允许的字符/],
      ['/*\n  Bad Name: x', /名称/],
      ['/*', /没有写任何响应头/],
    ] as const) {
      expect(() => parseHeaders(text), text).toThrow(reason);
    }
  });
});

describe('matchHeaderRules and withSiteHeaders', () => {
  const rules = compileSiteRules({
    headers:
      '/*\n  Link: </a.css>; rel=preload\n  Cache-Control: no-cache\n/assets/*\n  Cache-Control: max-age=60\n  Link: </b.js>; rel=preload',
  })!;

  it('merges every matching rule: one-value headers from the last, others joined', () => {
    expect(matchHeaderRules(rules, 'assets/x.js')).toEqual({
      link: '</a.css>; rel=preload, </b.js>; rel=preload',
      'cache-control': 'max-age=60',
    });
    expect(matchHeaderRules(rules, 'assets/x.js')).toBe(matchHeaderRules(rules, 'assets/y.js'));
  });

  it('puts the platform’s headers last, and drops COOP/COEP under a sandbox', () => {
    const own = {
      'cross-origin-opener-policy': 'same-origin',
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'default-src *',
    };
    const sandboxed = {
      'content-security-policy': 'sandbox allow-scripts',
      'x-content-type-options': 'nosniff',
    };
    const merged = withSiteHeaders(sandboxed, own);
    expect(merged['content-security-policy']).toBe('sandbox allow-scripts');
    expect(merged['cross-origin-opener-policy']).toBeUndefined();
    expect(withSiteHeaders(sandboxed, own)).toBe(merged);
    expect(withSiteHeaders({ 'x-content-type-options': 'nosniff' }, own)['cross-origin-opener-policy']).toBe(
      'same-origin',
    );
  });
});
