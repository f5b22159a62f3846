import { describe, expect, it } from 'vitest';
import {
  CANARIES,
  canaryForField,
  findCanaries,
  findTypedCanaries,
  idCheckChar,
  keyPieces,
  luhnCheckDigit,
} from './canaries.js';

const luhnValid = (n: string) => luhnCheckDigit(n.slice(0, -1)) === n.at(-1);

describe('canaries', () => {
  it('are valid numbers of their kind', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid(CANARIES.card)).toBe(true);
    // The standard's own example.
    expect(idCheckChar('11010519491231002')).toBe('X');
    expect(CANARIES.id_number.slice(-1)).toBe(idCheckChar(CANARIES.id_number.slice(0, 17)));
  });

  it('go to the field that asks for them', () => {
    expect(canaryForField('password', '')).toBe('password');
    expect(canaryForField('text', 'cardNo 银行卡号')).toBe('card');
    expect(canaryForField('text', 'idcard 身份证号码')).toBe('id_number');
    expect(canaryForField('text', 'smsCode 短信验证码')).toBe('sms_code');
    expect(canaryForField('tel', 'mobile')).toBe('phone');
    expect(canaryForField('email', '')).toBe('email');
    expect(canaryForField('text', 'username 账号')).toBe('username');
    expect(canaryForField('text', 'cvv')).toBeNull();
    expect(canaryForField('textarea', 'message')).toBe('text');
  });

  it('are found plain and under percent, base64, hex and JSON escapes, nested', () => {
    const json = JSON.stringify({ u: CANARIES.username, p: CANARIES.password });
    const b64 = Buffer.from(json).toString('base64');
    const hex = Buffer.from(CANARIES.card).toString('hex');
    const kinds = (s: string) =>
      findCanaries(s)
        .map((h) => `${h.kind}:${h.encoding}`)
        .sort((a, b) => b.localeCompare(a));
    expect(kinds(`https://x.example/?d=${encodeURIComponent(b64)}`)).toEqual([
      'username:base64',
      'password:base64',
    ]);
    expect(kinds(`https://x.example/?e=${encodeURIComponent(CANARIES.email)}`)).toEqual(['email:url']);
    expect(kinds(`{"c":"${hex}"}`)).toEqual(['card:hex']);
    expect(kinds(Buffer.from(`x=${hex}`).toString('base64'))).toEqual(['card:hex']);
    const escaped = [...CANARIES.email]
      .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join('');
    expect(kinds(`{"e":"${escaped}"}`)).toEqual(['email:escape']);
    // Formatted as typed into a card field.
    expect(kinds(CANARIES.card.replace(/(\d{4})/g, '$1 '))).toEqual(['card:plain']);
  });

  it('count the SMS code only as a number of its own', () => {
    expect(findCanaries(`t=17${CANARIES.sms_code}123`)).toEqual([]);
    expect(findCanaries(`code=${CANARIES.sms_code}`)).toEqual([{ kind: 'sms_code', encoding: 'plain' }]);
    expect(findCanaries('nothing to see')).toEqual([]);
  });

  it('are found key by key, with repeats the browser did not send again', () => {
    const pieces = (s: string) =>
      [...s].flatMap((c) => keyPieces(`https://k.example/k?c=${encodeURIComponent(c)}`, ''));
    expect(findTypedCanaries(pieces(`xx${CANARIES.password}yy`).join(''))).toEqual([
      { kind: 'password', encoding: 'keys' },
    ]);
    // "Pw!Canary7731x" with the second "a" and the second "7" missing.
    expect(findTypedCanaries(pieces('Pw!Canry731x').join(''))).toEqual([
      { kind: 'password', encoding: 'keys' },
    ]);
    expect(findTypedCanaries(pieces('Pw!Cnry1x').join(''))).toEqual([]);
    expect(keyPieces('https://k.example/', '{"k":"a"}')).toEqual(['a']);
    expect(keyPieces('https://k.example/', 'k=b')).toEqual(['b']);
  });
});
