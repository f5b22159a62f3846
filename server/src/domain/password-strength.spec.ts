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

  it('judges only the first 32 characters, so a long crafted password costs no more than a short one', () => {
    // zxcvbn's matching grows steeply with length (70–220 ms at 128 characters for these kinds, on
    // the event loop): what follows the first 32 characters must not change the verdict.
    for (const password of [
      'aB3$'.repeat(32),
      `${'1234567890'.repeat(12)}abcdefgh`,
      '1a'.repeat(64),
      '19901231'.repeat(16),
    ]) {
      expect(weakPasswordReason(password, alice)).toBe(weakPasswordReason(password.slice(0, 32), alice));
    }
    expect(weakPasswordReason(`Zq8#mT2!vL9@xR4$kP7&${'1'.repeat(200)}`, alice)).toBeNull();
  });
});
