/** The render's public-address check (docs/render.md): every form that reaches inside is refused. */
import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './public-assets.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '0x7f.1',
    '2130706433',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    // v4-mapped, dotted and hex, bracketed as in a URL
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:7f00:1]',
    '::ffff:a9fe:a9fe',
    '::ffff:10.0.0.1',
    // v4-compatible, SIIT, NAT64 (well-known and local-use), 6to4, Teredo
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:db8::1',
    'not an address',
    '',
  ])('refuses %s', (ip) => {
    expect(isPrivateAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::8.8.8.8', '2606:4700::1111'])(
    'allows the public %s',
    (ip) => {
      expect(isPrivateAddress(ip)).toBe(false);
    },
  );
});
