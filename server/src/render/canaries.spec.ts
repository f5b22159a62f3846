import { describe, expect, it } from 'vitest';
import {
  Canaries,
  type CanaryValues,
  canaryForField,
  drawCanaries,
  idCheckChar,
  keyPieces,
  luhnCheckDigit,
  PASSWORD_ALPHABET,
} from './canaries.js';

const luhnValid = (n: string) => luhnCheckDigit(n.slice(0, -1)) === n.at(-1);

// Known values, so that the encodings below can be written out (a render draws its own).
const CANARIES: CanaryValues = {
  password: 'Pw!Canary7731x',
  card: `622202773107731${luhnCheckDigit('622202773107731')}`,
  id_number: `11010119900307773${idCheckChar('11010119900307773')}`,
  sms_code: '731942',
  phone: '13977317731',
  email: 'canarymail7731@163.com',
  username: 'canaryuser7731',
  text: 'canarytext7731',
  keystrokes: 'canarykeys7731',
};
const known = new Canaries(CANARIES);
const findCanaries = (s: string) => known.find(s);
const findFragments = (s: string) => known.fragments(s);
const findInHost = (s: string) => known.inHost(s);
const findTypedCanaries = (s: string) => known.typed(s);

describe('canaries drawn for a render', () => {
  it('are valid values of their kind, each unlike the others, and never the same twice', () => {
    const drawn = Array.from({ length: 200 }, () => drawCanaries());
    for (const c of drawn) {
      expect(c.card).toMatch(/^62\d{14}$/);
      expect(luhnValid(c.card)).toBe(true);
      expect(c.id_number).toMatch(/^\d{6}(19[7-9]\d|200[0-3])(0[1-9]|1[0-2])(0[1-9]|1\d|2[0-8])\d{3}[\dX]$/);
      expect(c.id_number.slice(-1)).toBe(idCheckChar(c.id_number.slice(0, 17)));
      expect(c.phone).toMatch(/^1[3-9]\d{9}$/);
      expect(c.sms_code).toMatch(/^[1-9]\d{5}$/);
      expect(c.email).toMatch(/^[a-z]+\d{4}@[a-z0-9]+\.com$/);
      expect(c.username).toMatch(/^[a-z]+\d{4}$/);
      // A password sign-up forms take: a capital, a symbol, digits or letters, from its alphabet.
      expect(c.password).toMatch(/^[A-Z].*[!@#$%*].*$/);
      expect([...c.password].every((ch) => PASSWORD_ALPHABET.includes(ch))).toBe(true);
      // Nothing names the render (the fixed values said "canary").
      expect(Object.values(c).join(' ')).not.toMatch(/canary|sitehall|render/i);
      const values = Object.values(c);
      for (const v of values) expect(values.filter((w) => w.includes(v))).toEqual([v]);
      // Each is found in what a page sends, as the render looks for it.
      const set = new Canaries(c);
      expect(
        set
          .find(`u=${encodeURIComponent(c.username)}&p=${encodeURIComponent(c.password)}`)
          .map((h) => h.kind)
          .sort(),
      ).toEqual(['password', 'username']);
    }
    expect(new Set(drawn.map((c) => c.password)).size).toBe(drawn.length);
    expect(new Set(drawn.map((c) => c.card)).size).toBe(drawn.length);
  });

  it('count a piece of a pinyin name as a fragment only with its digits', () => {
    const c = { ...CANARIES, username: 'zhangweiming4821' };
    const set = new Canaries(c);
    // An ordinary page sends a name like this on its own; the digits tell a typed value.
    expect(set.fragments('author=zhangweiming')).toEqual([]);
    expect(set.fragments('k=eiming48')).toEqual([{ kind: 'username', encoding: 'fragment' }]);
  });
});

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
    // A password with four repeats among its thirteen keys: the stylesheet asked each address
    // once (the browser kept the image), so only its nine different characters arrive.
    const repeating = new Canaries({ ...CANARIES, password: 'LjfAd*LjLK5L8' });
    const once = [...new Set('LjfAd*LjLK5L8')].flatMap((c) =>
      keyPieces(`https://c.example/k/${encodeURIComponent(c)}`, ''),
    );
    expect(once.join('')).toBe('LjfAd*K58');
    expect(repeating.typed(once.join(''))).toEqual([{ kind: 'password', encoding: 'keys' }]);
    // A card number typed into a field the same stylesheet reads: its different digits, once each.
    expect(findTypedCanaries([...new Set(CANARIES.card)].join(''))).toEqual([
      { kind: 'card', encoding: 'keys' },
    ]);
    // Too few different characters to tell: the phone's four (1, 3, 9, 7) are nothing.
    expect(findTypedCanaries([...new Set(CANARIES.phone)].join(''))).toEqual([]);
    // A new character missing still breaks the sequence.
    expect(repeating.typed('LjfAdK58')).toEqual([]);
    const batches = ['canarytext7', '731canaryke'].flatMap((b) => keyPieces(`https://b.example/?k=${b}`, ''));
    expect(findTypedCanaries(batches.join(''))).toEqual([{ kind: 'text', encoding: 'keys' }]);
  });
});
