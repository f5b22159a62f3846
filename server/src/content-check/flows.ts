/**
 * Judging a request the page made when it ran (docs/content-check.md "Runtime rules"): by what it
 * carries and where it goes, not by the host alone. Loading a library, a font or a player from
 * anywhere is information; visits reported to an analytics service and messages to a form
 * service are what those services are for; data sent to a host that is no service meant to
 * receive it is worth a look; a drop (bot API, webhook, paste site, tunnel, raw IP address) or a
 * password, card or ID number carried to a host that should not get it is almost certainly
 * hostile.
 */

import { type DataKind, serviceAccepts, serviceOf, type WellKnownService } from './services.js';
import { isIpHost } from './urls.js';

export type FlowRule =
  | 'runtime.data-dropped'
  | 'runtime.sensitive-sent'
  | 'runtime.data-hidden'
  | 'runtime.data-sent'
  | 'runtime.external-request'
  | 'runtime.service'
  | 'runtime.external-asset';

/** Most severe first: a host's finding is the worst of its requests. */
export const FLOW_ORDER: readonly FlowRule[] = [
  'runtime.data-dropped',
  'runtime.sensitive-sent',
  'runtime.data-hidden',
  'runtime.data-sent',
  'runtime.external-request',
  'runtime.service',
  'runtime.external-asset',
];

export interface RequestSeen {
  method: string;
  url: string;
  resourceType: string;
}

export interface FlowJudgement {
  rule: FlowRule;
  service: WellKnownService | null;
  /** What sensitive data the URL carries, when that is what decided. */
  carries: DataKind | null;
}

/** Request types that carry data out by their nature. */
const SENDING = new Set(['ping', 'websocket', 'eventsource']);
/** Types that only fetch something to show. */
const ASSETS = new Set(['stylesheet', 'font', 'image', 'media']);

/** Parameter names that say what a value is. `code` alone is left out: OAuth and maps use it. */
const NAMED: Array<[RegExp, DataKind]> = [
  [/^(pass(word|wd)?|pwd|pw|passcode|mima|login_?pass(word)?|user_?pass(word)?|密码)$/i, 'credential'],
  [/^(card_?(no|num(ber)?)?|cc_?(num(ber)?)?|cvv2?|cvc|cardholder|银行卡(号)?|卡号)$/i, 'card'],
  [/^(id_?card(_?no)?|id_?no|id_?number|sfz(h|hm)?|shenfenzheng|身份证(号)?)$/i, 'id-number'],
  [/^(sms(_?code)?|otp|verify_?code|yzm|v_?code|验证码)$/i, 'sms-code'],
  [/^(keys|keylog|keystrokes?|typed)$/i, 'keystrokes'],
  [/^(clip(board)?|pasted)$/i, 'clipboard'],
];

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
/** A mainland resident ID number with a valid check character. */
function isIdNumber(s: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(s)) return false;
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += (s.charCodeAt(i) - 48) * ID_WEIGHTS[i]!;
  return '10X98765432'[sum % 11] === s[17]!.toUpperCase();
}

/** The sensitive data a value is, by its shape: a card number (Luhn) or an ID number (checksum). */
function sensitiveValue(value: string): DataKind | null {
  const compact = value.replace(/[\s-]/g, '');
  if (isIdNumber(compact)) return 'id-number';
  if (/^\d{13,19}$/.test(compact) && luhn(compact)) return 'card';
  return null;
}

/** The sensitive data a URL's query carries: by a parameter's name (with a value) or a value's shape. */
export function sensitiveInUrl(url: URL): DataKind | null {
  for (const [name, value] of url.searchParams) {
    if (value === '') continue;
    for (const [pattern, kind] of NAMED) if (pattern.test(name)) return kind;
    const shaped = sensitiveValue(value);
    if (shaped) return shaped;
  }
  return null;
}

/** A query that carries data rather than naming a version or a size: a long encoded value. */
function queryCarriesData(url: URL): boolean {
  for (const [, value] of url.searchParams) {
    if (value.length >= 32 && /^[A-Za-z0-9+/=_%.-]+$/.test(value) && !/^[\d.]+$/.test(value)) return true;
  }
  return url.search.length > 300;
}

/** Whether the request sends data: a body (any method but GET/HEAD), a beacon, a socket, an encoded query. */
export function sendsData(r: RequestSeen, url: URL): boolean {
  if (r.method !== 'GET' && r.method !== 'HEAD') return true;
  if (SENDING.has(r.resourceType)) return true;
  return queryCarriesData(url);
}

export function judgeRequest(r: RequestSeen): FlowJudgement {
  let url: URL;
  try {
    url = new URL(r.url);
  } catch {
    return { rule: 'runtime.external-request', service: null, carries: null };
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const service = serviceOf(host, url.pathname);
  const sends = sendsData(r, url);
  if (service?.receives === 'drop' || (isIpHost(host) && sends)) {
    return { rule: 'runtime.data-dropped', service, carries: null };
  }
  const carries = sensitiveInUrl(url);
  if (carries && !serviceAccepts(service, carries))
    return { rule: 'runtime.sensitive-sent', service, carries };
  if (sends) {
    const ordinary = service && serviceAccepts(service, service.receives === 'usage' ? 'usage' : 'message');
    return { rule: ordinary ? 'runtime.service' : 'runtime.data-sent', service, carries };
  }
  if (service) return { rule: 'runtime.service', service, carries: null };
  if (ASSETS.has(r.resourceType)) return { rule: 'runtime.external-asset', service: null, carries: null };
  return { rule: 'runtime.external-request', service: null, carries: null };
}

/** The same host asked again and again with a different query each time: data split into pieces. */
export const SPLIT_SENDS = 3;
