import { describe, expect, it } from 'vitest';
import { SITE_SANDBOX_CSP, siteHeadersForUrl, siteSecurityHeaders } from './site-headers.js';

describe('siteSecurityHeaders', () => {
  it('sandboxes sites on the one-host install, without allow-same-origin', () => {
    expect(siteSecurityHeaders('sandboxed')).toEqual({
      'content-security-policy': SITE_SANDBOX_CSP,
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    });
    expect(SITE_SANDBOX_CSP).not.toContain('allow-same-origin');
  });

  it('keeps previews private, unindexed and their tokens out of Referer', () => {
    for (const kind of ['sandboxed', 'separate-origin'] as const) {
      expect(siteSecurityHeaders(kind, { preview: true })).toMatchObject({
        'referrer-policy': 'no-referrer',
        'cache-control': 'private, no-store',
        'x-robots-tag': 'noindex, nofollow',
      });
    }
    expect(siteSecurityHeaders('sandboxed')['referrer-policy']).toBeUndefined();
  });

  it('needs no sandbox on a separate origin', () => {
    expect(siteSecurityHeaders('separate-origin')).toEqual({
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    });
  });

  it('picks the headers by URL', () => {
    expect(siteHeadersForUrl('/sites/1/a.html', 'sandboxed')?.['content-security-policy']).toBe(
      SITE_SANDBOX_CSP,
    );
    expect(siteHeadersForUrl('/preview/t/', 'sandboxed')?.['referrer-policy']).toBe('no-referrer');
    expect(siteHeadersForUrl('/preview?x', 'sandboxed')?.['cache-control']).toBe('private, no-store');
    expect(siteHeadersForUrl('/sites', 'sandboxed')).not.toBeNull();
    expect(siteHeadersForUrl('/sitesx/1/', 'sandboxed')).toBeNull();
    expect(siteHeadersForUrl('/api/projects', 'sandboxed')).toBeNull();
    expect(siteHeadersForUrl('/', 'sandboxed')).toBeNull();
  });
});
