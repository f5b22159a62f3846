/**
 * Which passwords a person may choose: zxcvbn-ts estimates how many guesses a password takes,
 * against its lists of leaked passwords, keyboard patterns, repeats, sequences, dates, the
 * account's own name and the common passwords of Chinese users below (docs/decisions/accounts.md
 * "Accounts and sessions"). Generated passwords don't go through here.
 *
 * The dictionaries are loaded once, on first use (~20 ms). A check runs on the event loop, so its
 * cost is bounded: only the first CHECKED_LENGTH characters are estimated (zxcvbn's matching grows
 * faster than the length: 128 crafted characters took 220 ms, 32 take at most ~15 ms), and the
 * fuzzy (Levenshtein) matching is off (~60 ms a check). A password whose first 32 characters are
 * hard to guess is hard to guess; one whose first 32 are not is refused, whatever follows.
 */
import { messages } from '@sitehall/contracts';
import { type MatchExtended, ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * zxcvbn's score: 3 is "safely unguessable" (10^8 guesses and more). Below it, a password falls
 * to an offline guesser of the password hashes soon enough to matter.
 */
export const MIN_PASSWORD_SCORE = 3;

/**
 * Passwords common among Chinese users that zxcvbn's (mostly Western) lists rank low or lack, in
 * rough order of how common they are in published analyses of Chinese leaks (CSDN, 163, Tianya):
 * the rank is the number of guesses zxcvbn credits a password that is exactly one of these.
 */
const CHINESE_COMMON_PASSWORDS = [
  '123456',
  '123456789',
  '111111',
  '5201314',
  '123123',
  '12345678',
  '1314520',
  '123321',
  '7758521',
  '5211314',
  '000000',
  '666666',
  '888888',
  'a123456',
  'woaini1314',
  'qq123456',
  '123qwe',
  '1qaz2wsx',
  'zxcvbnm',
  'iloveyou',
  'abc123456',
  'aa123456',
  'a123456789',
  'woaini',
  'woaini520',
  'woaini123',
  'wodemima',
  'woaiwojia',
  'aini1314',
  'iloveyou1314',
  '5201314520',
  '520520',
  '521521',
  '1314521',
  '7758258',
  '584520',
  '147258369',
  '147258',
  '159357',
  '159753',
  '654321',
  '987654321',
  '112233',
  '123654',
  '321321',
  '147852369',
  '88888888',
  '11111111',
  '12341234',
  '31415926',
  '1234qwer',
  'qwer1234',
  'q1w2e3r4',
  '1q2w3e4r',
  'qwe123',
  'asd123',
  'zxc123',
  'abc123',
  '123abc',
  'qazwsx',
  'qazwsxedc',
  'dearbook',
  'qwertyuiop',
  'asdfghjkl',
  'wang123',
  'wang123456',
  'zhang123',
  'zhang123456',
  'li123456',
  'chen123456',
  'liu123456',
  'huang123',
  'xiaoming',
  'zhangwei',
  'wangwei',
  'wangyang',
  'liuyang',
  'woshishui',
  'nihao123',
  'mima123',
  'mima123456',
  'admin123',
  'admin888',
  'sitehall',
  'zhandianzhanting',
];

const CHECKED_LENGTH = 32;

let estimator: ZxcvbnFactory | undefined;
function zxcvbn(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary: { ...dictionary, chinese: CHINESE_COMMON_PASSWORDS },
    graphs: adjacencyGraphs,
    maxLength: CHECKED_LENGTH,
  });
  return estimator;
}

/** Why the password is refused (a Chinese sentence), or null when it may be used. */
export function weakPasswordReason(
  password: string,
  context: { username: string; email?: string | null },
): string | null {
  const m = messages.auth;
  const lower = password.toLowerCase();
  const username = context.username.toLowerCase();
  if (username.length >= 3 && lower.includes(username)) return m.passwordHasUsername;
  const emailName = context.email?.split('@')[0]?.toLowerCase();
  const userInputs = [username, ...(emailName && emailName.length >= 3 ? [emailName] : [])];
  const result = zxcvbn().check(password, userInputs);
  if (result.score >= MIN_PASSWORD_SCORE) return null;
  const matches = result.sequence as MatchExtended[];
  const patterns = new Set(matches.map((match) => match.pattern));
  if (matches.some((match) => match.pattern === 'dictionary' && match.dictionaryName === 'userInputs'))
    return m.passwordHasUsername;
  if (patterns.has('dictionary')) return m.passwordTooCommon;
  if ([...patterns].every((p) => p === 'repeat' || p === 'sequence')) return m.passwordRepetitive;
  if (patterns.has('spatial')) return m.passwordKeyboardPattern;
  return m.passwordGuessable;
}
