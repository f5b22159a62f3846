import { messages } from '@sitehall/contracts';
import { describe, expect, it } from 'vitest';
import { weakPasswordReason } from './password-strength.js';
import { generatePassword } from './passwords.js';

const m = messages.auth;
const alice = { username: 'alice', email: 'al.ice@example.com' };

describe('weakPasswordReason', () => {
  it.each([
    // zxcvbn's leaked-password lists
    ['12345678', m.passwordTooCommon],
    ['password', m.passwordTooCommon],
    ['p@ssw0rd!', m.passwordTooCommon],
    ['qwertyuiop', m.passwordTooCommon],
    // common among Chinese users (the extra list)
    ['5201314', m.passwordTooCommon],
    ['woaini1314', m.passwordTooCommon],
    ['qq123456', m.passwordTooCommon],
    ['a123456', m.passwordTooCommon],
    ['123qwe', m.passwordTooCommon],
    ['1qaz2wsx', m.passwordTooCommon],
    ['zxcvbnm', m.passwordTooCommon],
    ['iloveyou', m.passwordTooCommon],
    ['abc123456', m.passwordTooCommon],
    ['aa123456', m.passwordTooCommon],
    ['woaini1314520', m.passwordTooCommon],
    ['111111', m.passwordTooCommon],
    ['666666', m.passwordTooCommon],
    ['888888', m.passwordTooCommon],
    // the account's own name, in any case, and its email's name
    ['alice2024', m.passwordHasUsername],
    ['ALICE12345', m.passwordHasUsername],
    ['my-alice-is-long-and-random-Q7', m.passwordHasUsername],
    ['al.ice2020', m.passwordHasUsername],
    // repeats and sequences
    ['aaaaaaaaaa', m.passwordRepetitive],
    ['abcdefghijk', m.passwordRepetitive],
    ['12121212', m.passwordRepetitive],
    // keyboard walks
    ['asdfghjkl;', m.passwordKeyboardPattern],
    ['wertyuio', m.passwordKeyboardPattern],
  ])('refuses %s', (password, reason) => {
    expect(weakPasswordReason(password, alice)).toBe(reason);
  });

  it.each([
    'a brand new password',
    'Tr0ub4dor&3x',
    'kx8!pq2mZ-7',
    '冬天的雪落在旧城墙上',
    'correct horse battery staple',
  ])('takes %s', (password) => {
    expect(weakPasswordReason(password, alice)).toBeNull();
  });

  it('takes every generated password', () => {
    for (let i = 0; i < 20; i++) expect(weakPasswordReason(generatePassword(), alice)).toBeNull();
  });

  it('checks the longest password allowed in well under 100 ms', () => {
    weakPasswordReason('warm up', alice);
    // The slowest kinds found: each took 70–220 ms at 128 characters with zxcvbn's defaults.
    for (const password of [
      'aB3$'.repeat(32),
      `${'1234567890'.repeat(12)}abcdefgh`,
      '1a'.repeat(64),
      '19901231'.repeat(16),
    ]) {
      const started = performance.now();
      weakPasswordReason(password, alice);
      expect(performance.now() - started).toBeLessThan(100);
    }
  });
});
