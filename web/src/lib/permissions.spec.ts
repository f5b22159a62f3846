import { describe, expect, it } from 'vitest';
import { hasPermission, type Permission } from './permissions';

describe('hasPermission', () => {
  it('lets an admin pass every check', () => {
    expect(hasPermission({ role: 'admin' }, 'admin')).toBe(true);
    expect(hasPermission({ role: 'admin' }, 'user')).toBe(true);
    expect(hasPermission({ role: 'admin' }, 'anything' as Permission)).toBe(true);
  });

  it('grants users the user permission only', () => {
    expect(hasPermission({ role: 'user' }, 'user')).toBe(true);
    expect(hasPermission({ role: 'user' }, 'admin')).toBe(false);
    expect(hasPermission({ role: 'user' }, 'anything' as Permission)).toBe(false);
  });

  it('denies everything when signed out', () => {
    expect(hasPermission(null, 'user')).toBe(false);
    expect(hasPermission(undefined, 'admin')).toBe(false);
  });
});
