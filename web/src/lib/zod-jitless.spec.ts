import { describe, expect, it } from 'vitest';

describe('zod in the browser', () => {
  it('runs without its JIT, so no schema probes with new Function (which the CSP reports)', async () => {
    await import('./zod-jitless');
    const { config } = await import('zod');
    expect(config().jitless).toBe(true);
    // The contracts' schemas still check what they should.
    const { loginBody } = await import('@sitehall/contracts');
    expect(loginBody.safeParse({ username: 'alice', password: 'secret-123' }).success).toBe(true);
    expect(loginBody.safeParse({ username: '', password: '' }).success).toBe(false);
  });
});
