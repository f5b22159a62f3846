/**
 * The render's visitor types recognisable values into the page (docs/render.md "The visitor"):
 * a password, a card number, an ID number, a phone number, an SMS code, a user name, an e-mail,
 * drawn afresh for every render. Each is unlike anything a page would send on its own, so finding
 * one in a request the page tried means the page sent what a visitor typed. Looked for plain and under the encodings pages use to
 * hide it: percent-encoding, base64 (standard and URL-safe), hex, JSON/JS escapes, and split into
 * one request per key.
 */

import { randomInt } from 'node:crypto';
import { CONTENT_CHECK_CANARY_KINDS, type ContentCheckCanaryKind } from '@sitehall/contracts';

/** What a canary stands for; the report's kinds (packages/contracts), so the two can't drift. */
export type CanaryKind = ContentCheckCanaryKind;

/** Kinds a visitor gives only to the site it trusts: sending one elsewhere is a theft. */
export const SECRET_CANARIES: ReadonlySet<CanaryKind> = new Set([
  'password',
  'card',
  'id_number',
  'sms_code',
]);

/** The last digit making `digits` Luhn-valid (bank cards). */
export function luhnCheckDigit(digits: string): string {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

/** The check character of a Chinese resident ID number's first 17 digits (GB 11643). */
export function idCheckChar(first17: string): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * (weights[i] ?? 0);
  return '10X98765432'[sum % 11] ?? '0';
}

/** One value per kind: what the visitor of one render types (drawCanaries). */
export type CanaryValues = Readonly<Record<CanaryKind, string>>;

const KINDS: readonly CanaryKind[] = CONTENT_CHECK_CANARY_KINDS;

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)] as T;
const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const SURNAMES = [
  'li',
  'wang',
  'zhang',
  'liu',
  'chen',
  'yang',
  'zhao',
  'huang',
  'zhou',
  'wu',
  'xu',
  'sun',
  'gao',
  'lin',
  'guo',
  'luo',
];
const GIVEN = [
  'wei',
  'fang',
  'min',
  'jing',
  'qiang',
  'lei',
  'jun',
  'yong',
  'yan',
  'jie',
  'tao',
  'ming',
  'chao',
  'hua',
  'ping',
  'hao',
  'ting',
  'xin',
];
/** A name as people pick them for accounts: pinyin and four digits (zhangweiming4821). */
const handle = () => `${pick(SURNAMES)}${pick(GIVEN)}${pick(GIVEN)}${digits(4)}`;
/** What a drawn password is made of (a test of the CSS side channel needs every character). */
export const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz23456789!@#$%*';
const LETTERS_AND_DIGITS = PASSWORD_ALPHABET.replace(/[^A-Za-z0-9]/g, '');
/** Issuer prefixes of cards common in China (ICBC, ABC, CCB, CMB, BOC); 16 digits with the check. */
const CARD_BINS = ['622202', '622848', '621700', '622588', '621661', '622262'];
/** Districts of Beijing, Shanghai, Guangzhou, Hangzhou, Chengdu, Nanjing, Wuhan. */
const REGIONS = ['110101', '110105', '310104', '440106', '330106', '510107', '320102', '420106'];
const MOBILE = ['135', '136', '138', '139', '150', '151', '158', '177', '186', '187', '188', '199'];
const MAIL = ['163.com', 'qq.com', '126.com', 'sina.com', 'foxmail.com'];

/** A date of birth between 1970 and 2003, as YYYYMMDD (every day valid in every month). */
function birthDate(): string {
  const y = 1970 + randomInt(34);
  const m = 1 + randomInt(12);
  const d = 1 + randomInt(28);
  return `${y}${String(m).padStart(2, '0')}${String(d).padStart(2, '0')}`;
}

function password(): string {
  // Letters and digits, one symbol inside, one capital first: what sign-up forms ask for.
  const body = Array.from({ length: 10 }, () => pick([...LETTERS_AND_DIGITS]));
  body.splice(2 + randomInt(7), 0, pick([...'!@#$%*']));
  return `${pick([...'ABCDEFGHJKLMNPQRSTUVWXYZ'])}${body.join('')}${pick([...'23456789'])}`;
}

function draw(): Record<CanaryKind, string> {
  const card = `${pick(CARD_BINS)}${digits(9)}`;
  const id = `${pick(REGIONS)}${birthDate()}${digits(3)}`;
  return {
    password: password(),
    card: `${card}${luhnCheckDigit(card)}`,
    id_number: `${id}${idCheckChar(id)}`,
    sms_code: `${1 + randomInt(9)}${digits(5)}`,
    phone: `${pick(MOBILE)}${digits(8)}`,
    email: `${handle()}@${pick(MAIL)}`,
    username: handle(),
    text: handle(),
    // Pressed with no field focused: only a listener on the whole page (a keylogger) gets them.
    keystrokes: handle(),
  };
}

/**
 * A render's own canaries, drawn afresh for each render (docs/render.md "The visitor"): values
 * fixed in the source let a page tell the render from a visitor by what it is given. Each looks
 * like what a person types there (a card of a Chinese bank that passes the Luhn check, a resident
 * ID with its check character, a mobile number, a pinyin account name), and each is unlike any
 * other (none holds another, their digits included) and unlike what a page sends on its own.
 */
export function drawCanaries(): CanaryValues {
  for (;;) {
    const values = draw();
    const all = KINDS.map((k) => values[k]);
    // Digits are matched with separators dropped: no number may hold another number's digits.
    const numbers = KINDS.filter((k) => DIGITS_ONLY.has(k)).map((k) => values[k].replace(/\D/g, ''));
    const apart =
      all.every((v, i) => all.every((w, j) => i === j || !w.includes(v))) &&
      numbers.every((v, i) => numbers.every((w, j) => i === j || !w.includes(v)));
    if (apart) return Object.freeze(values);
  }
}

const DIGITS_ONLY: ReadonlySet<CanaryKind> = new Set(['card', 'id_number', 'sms_code', 'phone']);

/** Which canary a field gets, from what it says it is (type, name, id, placeholder, label). */
export function canaryForField(type: string, describedAs: string): CanaryKind | null {
  const t = type.toLowerCase();
  const d = describedAs.toLowerCase();
  if (t === 'password') return 'password';
  if (/身份证|证件|id-?card|id_?no|idnum|identity|sfz/.test(d)) return 'id_number';
  if (/卡号|银行卡|信用卡|card|cc-?num|pan\b/.test(d)) return 'card';
  if (/验证码|动态码|校验码|sms|otp|verif|code|captcha|yzm/.test(d)) return 'sms_code';
  if (/密码|passw|pwd|pin\b/.test(d)) return 'password';
  if (t === 'tel' || /手机|电话|phone|mobile|tel\b|shouji/.test(d)) return 'phone';
  if (t === 'email' || /邮箱|e-?mail|mail/.test(d)) return 'email';
  if (/cvv|cvc|安全码|有效期|expir|mm\s*\/\s*yy/.test(d)) return null;
  if (t === 'number' || t === 'date' || t === 'month') return null;
  if (/用户|账号|帐号|user|account|login|name|名|qq|uid/.test(d)) return 'username';
  return 'text';
}

/**
 * How a canary was found: as sent, under an encoding, sent key by key or in batches (`keys`), a
 * piece of it alone (`fragment`: a logger's buffer flushed before the value was whole), or in a
 * host name's labels (`base32` besides plain and hex: what fits a DNS label).
 */
export type Encoding = 'plain' | 'url' | 'base64' | 'hex' | 'escape' | 'keys' | 'fragment' | 'base32';

export interface CanaryHit {
  kind: CanaryKind;
  encoding: Encoding;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){6,}/g;
/** Bytes read of one request's body or frame: beyond it, nothing is decoded. */
const MAX_SCAN = 256 * 1024;

function printable(s: string): boolean {
  if (s.length === 0) return false;
  let bad = 0;
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c < 9 || (c > 13 && c < 32) || c === 0xfffd) bad++;
  }
  return bad / s.length < 0.1;
}

function percentDecode(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
  }
}

function unescapeJs(s: string): string {
  if (!s.includes('\\')) return s;
  return s
    .replace(/\\u\{([0-9a-fA-F]{1,6})\}/g, (_, h: string) => String.fromCodePoint(Number.parseInt(h, 16)))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)))
    .replace(/\\x([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16)));
}

function decodedRuns(s: string): Array<{ text: string; encoding: Encoding }> {
  const out: Array<{ text: string; encoding: Encoding }> = [];
  for (const m of s.match(HEX_RUN) ?? []) {
    const text = Buffer.from(m, 'hex').toString('utf8');
    if (printable(text)) out.push({ text, encoding: 'hex' });
  }
  for (const m of s.match(BASE64_RUN) ?? []) {
    if (/^[0-9a-fA-F]+$/.test(m) || /^\d+$/.test(m)) continue;
    const text = Buffer.from(m.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (printable(text)) out.push({ text, encoding: 'base64' });
  }
  return out;
}

/**
 * Every reading of a payload worth searching: as sent, percent-decoded, unescaped, and base64 or
 * hex runs inside those decoded (twice over: base64 of a JSON with escapes, hex of a base64...).
 */
export function readings(payload: string): Array<{ text: string; encoding: Encoding }> {
  const raw = payload.length > MAX_SCAN ? payload.slice(0, MAX_SCAN) : payload;
  const out: Array<{ text: string; encoding: Encoding }> = [{ text: raw, encoding: 'plain' }];
  const url = percentDecode(raw);
  if (url !== raw) out.push({ text: url, encoding: 'url' });
  const esc = unescapeJs(url);
  if (esc !== url) out.push({ text: esc, encoding: 'escape' });
  let layer = out.slice();
  for (let depth = 0; depth < 2 && layer.length > 0; depth++) {
    const next: Array<{ text: string; encoding: Encoding }> = [];
    for (const r of layer) {
      for (const d of decodedRuns(r.text)) {
        next.push(d);
        const u = unescapeJs(percentDecode(d.text));
        if (u !== d.text) next.push({ text: u, encoding: d.encoding });
      }
    }
    for (const d of next) out.push(d);
    layer = next;
  }
  return out;
}

function contains(text: string, kind: CanaryKind, value: string): boolean {
  if (!DIGITS_ONLY.has(kind)) return text.includes(value);
  // Pages format numbers as they are typed (6222 0277 ..., 139-7731-7731): separators do not hide one.
  const digits = text.replace(/[\s\-.]/g, '');
  const at = digits.indexOf(value);
  if (at < 0) return false;
  // The six-digit code counts only as a number of its own, not inside a longer one (a timestamp).
  if (kind === 'sms_code') return new RegExp(`(?<!\\d)${value}(?!\\d)`).test(digits);
  return true;
}

/** The shortest piece of a typed value that counts as a fragment of it: of text, of digits. */
const FRAGMENT_MIN = 8;
const DIGIT_FRAGMENT_MIN = 10;

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32 (the alphabet DNS exfiltration uses: it survives a name's lowercasing), or ''. */
function base32Decode(s: string): string {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of s) {
    const v = BASE32.indexOf(ch);
    if (v < 0) return '';
    value = (value << 5) | v;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** A value as it can live in a host name: lower case, letters and digits only. */
const asLabel = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Where one render's canaries are looked for (a URL, a body, a frame, a host name, the keys a
 * logger sent), each hit with how it was hidden.
 */
export class Canaries {
  /** The pieces of each canary that are in no other canary (the windows a fragment is matched by). */
  readonly #fragments: ReadonlyArray<[CanaryKind, string[]]>;

  constructor(readonly values: CanaryValues = drawCanaries()) {
    this.#fragments = KINDS.map((kind) => {
      const value = values[kind];
      const n = DIGITS_ONLY.has(kind) ? DIGIT_FRAGMENT_MIN : FRAGMENT_MIN;
      const windows = new Set<string>();
      for (let i = 0; i + n <= value.length; i++) windows.add(value.slice(i, i + n));
      const others = KINDS.filter((k) => k !== kind).map((k) => values[k]);
      // A piece of letters alone (a pinyin name: "zhangwei") is what ordinary pages send too.
      const telling = (w: string) => DIGITS_ONLY.has(kind) || kind === 'password' || /\d/.test(w);
      return [kind, [...windows].filter((w) => telling(w) && !others.some((o) => o.includes(w)))];
    });
  }

  /** The canaries found in one payload (a URL, a body, a frame), each with how it was hidden. */
  find(payload: string): CanaryHit[] {
    if (!payload) return [];
    const hits: CanaryHit[] = [];
    const seen = new Set<CanaryKind>();
    for (const r of readings(payload)) {
      for (const kind of KINDS) {
        if (seen.has(kind) || !contains(r.text, kind, this.values[kind])) continue;
        seen.add(kind);
        hits.push({ kind, encoding: r.encoding });
      }
    }
    return hits;
  }

  /**
   * The canaries of which only a piece is in `payload` (eight characters or more, ten of digits, a
   * piece no other canary has): what a keylogger sends when its buffer fills before a value is
   * whole. Kinds found whole are not listed.
   */
  fragments(payload: string): CanaryHit[] {
    if (!payload) return [];
    const whole = new Set(this.find(payload).map((h) => h.kind));
    const hits: CanaryHit[] = [];
    for (const r of readings(payload)) {
      const digits = r.text.replace(/[\s\-.]/g, '');
      for (const [kind, windows] of this.#fragments) {
        if (whole.has(kind) || hits.some((h) => h.kind === kind)) continue;
        const text = DIGITS_ONLY.has(kind) ? digits : r.text;
        if (windows.some((w) => text.includes(w))) hits.push({ kind, encoding: 'fragment' });
      }
    }
    return hits;
  }

  /**
   * The canaries a host name carries (DNS-prefetch, preconnect or any request to a made-up
   * subdomain): in its labels, lower-cased with what a label can't hold left out, or hex or base32
   * in a label or across the labels joined.
   */
  inHost(host: string): CanaryHit[] {
    const labels = host.toLowerCase().replace(/:\d+$/, '').split('.').filter(Boolean);
    // The registrable part (two labels) is the receiver's own name, not data.
    const data = labels.slice(0, Math.max(0, labels.length - 2));
    if (data.length === 0) return [];
    const joined = data.join('');
    const readingsOf: Array<{ text: string; encoding: Encoding }> = [{ text: joined, encoding: 'plain' }];
    for (const part of [...data, joined]) {
      if (/^(?:[0-9a-f]{2}){4,}$/.test(part))
        readingsOf.push({ text: asLabel(Buffer.from(part, 'hex').toString('utf8')), encoding: 'hex' });
      if (part.length >= 8 && /^[a-z2-7]+$/.test(part)) {
        const decoded = base32Decode(part);
        if (printable(decoded)) readingsOf.push({ text: asLabel(decoded), encoding: 'base32' });
      }
    }
    const hits: CanaryHit[] = [];
    for (const r of readingsOf)
      for (const kind of KINDS)
        if (!hits.some((h) => h.kind === kind) && r.text.includes(asLabel(this.values[kind])))
          hits.push({ kind, encoding: r.encoding });
    return hits;
  }

  /** The canaries a logger sent one key per request, or in batches (see keyPieces). */
  typed(keys: string): CanaryHit[] {
    const whole = new Set(this.find(keys).map((h) => h.kind));
    return KINDS.filter((kind) => whole.has(kind) || typedIn(keys, this.values[kind])).map((kind) => ({
      kind,
      encoding: 'keys' as const,
    }));
  }
}

/**
 * Whether `value` was sent key by key in `keys` (the short values of a host's requests, joined).
 * The browser may not repeat a request identical to one still in flight (an image beacon for the
 * second "7" of "77"), so a key the value has already used may be missing; every other key must be
 * there, in order, and at least three in four of all of them. A stylesheet that asks one address
 * per key (a CSS attribute-selector logger) is answered once per address: the browser keeps the
 * image, and the key's second press asks nothing. Such a logger sends each of the value's
 * characters once, in the order first typed, which is taken too when the value has at least
 * DISTINCT_KEYS_MIN different characters (a password with four repeats among its thirteen keys
 * had been missed: docs/render.md "Keys sent one by one, each once").
 */
function typedIn(keys: string, value: string): boolean {
  const distinct = new Set(value).size;
  for (
    let start = keys.indexOf(value[0] ?? '');
    start >= 0;
    start = keys.indexOf(value[0] ?? '', start + 1)
  ) {
    let k = start;
    let matched = 0;
    let j = 0;
    for (; j < value.length; j++) {
      const ch = value[j] ?? '';
      if (keys[k] === ch) {
        k++;
        matched++;
      } else if (!value.slice(0, j).includes(ch)) break;
    }
    if (j !== value.length) continue;
    if (matched * 4 >= value.length * 3) return true;
    if (matched === distinct && distinct >= DISTINCT_KEYS_MIN) return true;
  }
  return false;
}

/**
 * The fewest different characters a value sent once each (see typedIn) must have: six keys in a
 * given order, each the next new one of the value, are not what a host's other short values spell.
 */
const DISTINCT_KEYS_MIN = 6;

/** The longest value taken as one piece of a key-by-key or batched send. */
const PIECE_MAX = 40;
const isPiece = (v: string) => v.length > 0 && v.length <= PIECE_MAX;

/**
 * The short values of one request (query values, a short last path segment, a body or frame of a
 * few dozen characters): a logger that sends one key per request, or its buffer in batches, is
 * read by joining them, host by host, in the order sent. A CSS side channel asks one address per
 * key (`url(https://x.example/k/a)`): with no query and no body, the last segment of the path (of
 * three characters at most) is a piece.
 */
export function keyPieces(url: string, body: string): string[] {
  const pieces: string[] = [];
  try {
    const u = new URL(url);
    for (const [, v] of u.searchParams) if (isPiece(v)) pieces.push(v);
    if (u.search || body) return keyPiecesOfBody(pieces, body);
    const last = u.pathname
      .slice(u.pathname.lastIndexOf('/') + 1)
      .replace(/\.(png|gif|jpe?g|svg|webp)$/i, '');
    const segment = percentDecodeStrict(last);
    if (segment.length > 0 && segment.length <= 3) pieces.push(segment);
  } catch {}
  return keyPiecesOfBody(pieces, body);
}

function keyPiecesOfBody(pieces: string[], body: string): string[] {
  const b = body.trim();
  if (b.length <= 200 && /^[\w.%-]+=/.test(b)) {
    for (const [, v] of new URLSearchParams(b)) if (isPiece(v)) pieces.push(v);
  } else if (b.length <= 200 && b.startsWith('{')) {
    try {
      for (const v of Object.values(JSON.parse(b) as Record<string, unknown>))
        if (typeof v === 'string' && isPiece(v)) pieces.push(v);
    } catch {}
  } else if (isPiece(b)) pieces.push(b);
  return pieces;
}

function percentDecodeStrict(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
