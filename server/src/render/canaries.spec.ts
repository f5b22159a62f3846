import { describe, expect, it } from 'vitest';
import {
  CANARIES,
  canaryForField,
  findCanaries,
  findFragments,
  findInHost,
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

describe('canaries in pieces and in host names', () => {
  it("are found as a fragment when a logger's buffer left before the value was whole", () => {
    expect(findFragments('https://x.example/k?k=canarytext7')).toEqual([
      { kind: 'text', encoding: 'fragment' },
    ]);
    // Whole, it is no fragment; seven characters, or a piece every canary has, are nothing.
    expect(findFragments(`k=${CANARIES.text}`)).toEqual([]);
    expect(findFragments('k=canaryt')).toEqual([]);
    expect(findFragments(`k=${CANARIES.card.slice(2, 12)}`)).toEqual([
      { kind: 'card', encoding: 'fragment' },
    ]);
  });

  it('are found in the labels of a host name: plain (lower-cased, "!" dropped), hex and base32', () => {
    const label = CANARIES.password.toLowerCase().replace(/[^a-z0-9]/g, '');
    expect(findInHost(`${CANARIES.phone}.${label}.evil.top`)).toEqual([
      { kind: 'password', encoding: 'plain' },
      { kind: 'phone', encoding: 'plain' },
    ]);
    expect(findInHost(`${Buffer.from(CANARIES.username).toString('hex')}.evil.top`)).toEqual([
      { kind: 'username', encoding: 'hex' },
    ]);
    const base32 = (s: string) => {
      const bits = [...Buffer.from(s)].map((b) => b.toString(2).padStart(8, '0')).join('');
      return (bits.match(/.{1,5}/g) ?? [])
        .map((c) => 'abcdefghijklmnopqrstuvwxyz234567'[Number.parseInt(c.padEnd(5, '0'), 2)])
        .join('');
    };
    expect(findInHost(`${base32(CANARIES.email)}.evil.top`)).toEqual([{ kind: 'email', encoding: 'base32' }]);
    // The receiver's own name is no data; an ordinary CDN host carries none.
    expect(findInHost('canaryuser7731.top')).toEqual([]);
    expect(findInHost('cdn.jsdelivr.net')).toEqual([]);
  });

  it('read a CSS side channel one path per key, and batches of a logger joined', () => {
    const css = [...CANARIES.password].flatMap((c) =>
      keyPieces(`https://c.example/k/${encodeURIComponent(c)}`, ''),
    );
    expect(findTypedCanaries(css.join(''))).toEqual([{ kind: 'password', encoding: 'keys' }]);
    // A path segment counts only when the request carries nothing else.
    expect(keyPieces('https://c.example/k?c=a', '')).toEqual(['a']);
    const batches = ['canarytext7', '731canaryke'].flatMap((b) => keyPieces(`https://b.example/?k=${b}`, ''));
    expect(findTypedCanaries(batches.join(''))).toEqual([{ kind: 'text', encoding: 'keys' }]);
  });
});
