/**
 * JavaScript, parsed with acorn: the URLs and hosts a script names (string literals, simple
 * concatenations, and what decodes statically: base64, percent and hex escapes, fromCharCode of
 * literals, reversed strings, each decoded string scanned again), the requests it sends to other
 * hosts (fetch, XMLHttpRequest, sendBeacon, image src, WebSocket, EventSource, jQuery/axios, a
 * form it submits), what it reads (keystrokes, clipboard, whole forms, password fields),
 * redirects, and decoded content it executes or writes. A script acorn can't parse (JSX, a
 * template, broken code) still has its string literals scanned.
 */
import type {
  AnyNode,
  ArrayExpression,
  CallExpression,
  Expression,
  MemberExpression,
  NewExpression,
  ObjectExpression,
  Pattern,
  SpreadElement,
  Super,
} from 'acorn';
import { parse } from 'acorn';
import { full } from 'acorn-walk';
import type { FileContext } from './context.js';
import {
  classifyUrl,
  executableExtension,
  exfilEndpoint,
  isFormService,
  isKnownService,
  urlsInText,
} from './urls.js';

/** Strings decoded from strings are scanned again, to this depth. */
const MAX_DEPTH = 3;
/** Nodes walked between two looks at the file's deadline. */
const NODES_PER_TIME_CHECK = 2000;

/** Known browser crypto-miners (names of their libraries, hosts and entry points). */
export const MINERS =
  /\b(coin-?hive|authedmine|crypto-?loot|coinimp|jsecoin|webmine(?:pool|rpool|\.pro)|deepminer|cryptonight|coinhave|minero\.cc|monerominer|nfwebminer|crypto-webminer|ppoi\.org|CRLT\.Anonymous)\b/gi;

/* Bounded patterns over the raw text, so none backtracks badly on hostile input. */
const PACKER = /\beval\s*\(\s*function\s*\(\s*p\s*,\s*a\s*,\s*c\s*,\s*k\s*,\s*e\s*,/g;
const EVAL_ENCODED =
  /\b(eval|Function)\s*\(\s*(?:'[A-Za-z0-9+/]{200,}={0,2}'|"[A-Za-z0-9+/]{200,}={0,2}"|`[A-Za-z0-9+/]{200,}={0,2}`)/g;
const CHAR_CODES = /String\.fromCharCode\s*\((?:\s*\d{1,6}\s*,){40}/g;
const HEX_ESCAPES = /(?:\\x[0-9a-fA-F]{2}){40}/g;
const DECODE_CALL_IN_TEXT =
  /\b(document\.write(?:ln)?|eval|Function|setTimeout|setInterval)\s*\(\s*(?:window\.)?(atob|unescape|decodeURIComponent|String\.fromCharCode)\s*\(/g;
const KEY_EVENTS = new Set(['keydown', 'keypress', 'keyup', 'input', 'beforeinput']);
const PASSWORD_WORDS = /password|passwd|\bpass\b|\bpwd\b|密码|type\s*=\s*['"]?password/i;
/** In a long string (markup a script inserts), only a password field made counts, not prose. */
const PASSWORD_INPUT = /type\s*=\s*['"]?password/i;
const EQUALITY = new Set(['===', '==', '!==', '!=']);
/** What a visitor does on purpose: a page that leaves then is following a link or a form. */
const USER_EVENTS = new Set(['click', 'dblclick', 'submit', 'change', 'mouseup', 'pointerup', 'touchend']);
const USER_HANDLER_PROPS = new Set(['onclick', 'ondblclick', 'onsubmit', 'onchange']);
const DECODERS = new Set(['atob', 'unescape', 'decodeURIComponent', 'decodeURI', 'fromCharCode']);
const GLOBAL_OBJECTS = new Set(['window', 'self', 'globalThis', 'top', 'parent', 'document']);

type Val = { s: string; complete: boolean };
type Expr = Expression | SpreadElement | Super | Pattern;

export function scanScript(ctx: FileContext, code: string, base: number, depth = 0): void {
  if (depth > MAX_DEPTH) return;
  rawPatterns(ctx, code, base);
  let ast: AnyNode;
  try {
    ast = parseLoose(code);
  } catch {
    fallback(ctx, code, base, depth);
    return;
  }
  new ScriptWalk(ctx, base, depth).run(ast);
}

function parseLoose(code: string): AnyNode {
  const common = {
    ecmaVersion: 'latest',
    allowHashBang: true,
    allowReturnOutsideFunction: true,
    allowAwaitOutsideFunction: true,
    allowImportExportEverywhere: true,
  } as const;
  try {
    return parse(code, { ...common, sourceType: 'script' }) as AnyNode;
  } catch (error) {
    // Parsing again as a module only helps module syntax (a second full parse costs as much).
    if (!/module|import|export|await|strict/i.test(String(error))) throw error;
    return parse(code, { ...common, sourceType: 'module' }) as AnyNode;
  }
}

function rawPatterns(ctx: FileContext, code: string, base: number) {
  const at = (i: number) => base + i;
  for (const match of code.matchAll(PACKER)) ctx.add('js.packer', {}, at(match.index));
  for (const match of code.matchAll(EVAL_ENCODED))
    ctx.add('js.eval-encoded', { fn: match[1]! }, at(match.index));
  for (const match of code.matchAll(CHAR_CODES)) ctx.add('js.char-codes', {}, at(match.index));
  for (const match of code.matchAll(HEX_ESCAPES)) ctx.add('js.hex-escapes', {}, at(match.index));
  for (const match of code.matchAll(MINERS)) ctx.add('js.crypto-miner', { name: match[1]! }, at(match.index));
}

/** Code acorn can't parse: its string literals are still looked at, and decoders fed to eval/write. */
function fallback(ctx: FileContext, code: string, base: number, depth: number) {
  for (const match of code.matchAll(DECODE_CALL_IN_TEXT)) {
    ctx.add('js.decoded-execution', { fn: match[1]!, decoder: match[2]! }, base + match.index);
  }
  let n = 0;
  for (const [value, at] of stringLiterals(code)) {
    if (++n % NODES_PER_TIME_CHECK === 0) ctx.checkTime();
    const text = value.replace(/\\x([0-9a-f]{2})|\\u([0-9a-f]{4})/gi, (_, x: string, u: string) =>
      String.fromCharCode(Number.parseInt(x ?? u, 16)),
    );
    scanString(ctx, text, base + at, depth, false);
  }
}

/** Quoted strings of code that doesn't parse, in one linear pass (an unclosed quote ends at its line). */
function* stringLiterals(code: string): Generator<[string, number]> {
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c !== '"' && c !== "'" && c !== '`') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < code.length && code[j] !== c && code[j] !== '\n') j += code[j] === '\\' ? 2 : 1;
    if (code[j] === c && j - i - 1 >= 4 && j - i - 1 <= 2000) yield [code.slice(i + 1, j), i];
    i = j + 1;
  }
}

/** A string the script holds: its URLs, and (when it decodes) what it decodes to. */
function scanString(ctx: FileContext, s: string, offset: number, depth: number, decoded: boolean) {
  if (s.length < 4) return;
  for (const url of urlsInText(s)) noteUrl(ctx, url, offset);
  if (decoded) {
    if (ctx.decodedSeen.has(s) || depth >= MAX_DEPTH) return;
    ctx.decodedSeen.add(s);
    // What a script decodes is scanned as what it would become: markup or more script.
    if (/<[a-z!/]/i.test(s)) ctx.scanMarkup?.(s, offset, depth + 1);
    else if (/[(=;]/.test(s)) scanScript(ctx, s, offset, depth + 1);
    return;
  }
  if (depth >= MAX_DEPTH) return;
  const unpacked = decodeLiteral(s);
  if (unpacked !== null) scanString(ctx, unpacked, offset, depth + 1, true);
}

/** A host named in a script: listed, and flagged when it is a known exfiltration endpoint. */
function noteUrl(ctx: FileContext, url: string, offset: number) {
  const target = classifyUrl(url);
  if (target.kind !== 'external') return;
  ctx.domain('script_hosts', target.host);
  const what = exfilEndpoint(target.url, target.host);
  if (what) ctx.addOnce('js.exfil-endpoint', target.host, { what, host: target.host }, offset);
}

/** A literal that is base64 or percent-encoded text: what it decodes to, else null. */
export function decodeLiteral(s: string): string | null {
  const t = s.trim();
  if (t.length >= 16 && t.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(t) && !/^[a-z]+$/i.test(t)) {
    const text = Buffer.from(t, 'base64').toString('utf8');
    if (isMostlyText(text)) return text;
  }
  if ((t.match(/%[0-9a-f]{2}/gi)?.length ?? 0) >= 3) {
    const text = percentDecode(t);
    if (text !== t) return text;
  }
  return null;
}

function isMostlyText(s: string): boolean {
  if (s.length === 0 || s.includes('\uFFFD')) return false;
  let printable = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09 || c > 0xa0) printable++;
  }
  return printable / s.length > 0.95;
}

function percentDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%u([0-9a-f]{4})|%([0-9a-f]{2})/gi, (_, u: string, x: string) =>
      String.fromCharCode(Number.parseInt(u ?? x, 16)),
    );
  }
}

const nameOf = (node: Expr | undefined): string | null => {
  if (!node) return null;
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed && node.property.type === 'Identifier') {
    return node.property.name;
  }
  if (node.type === 'MemberExpression' && node.property.type === 'Literal')
    return String(node.property.value);
  return null;
};

/** `fetch` or `window.fetch`: the function a call names, without a global object in front. */
function calleeName(node: Expr): string | null {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression') {
    const object = node.object;
    const prop = nameOf(node);
    if (object.type === 'Identifier' && GLOBAL_OBJECTS.has(object.name) && object.name !== 'document') {
      return prop;
    }
  }
  return null;
}

/** "document.write", "navigator.sendBeacon", "$.ajax": the member path of a callee, two deep. */
function memberPath(node: Expr): string {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression') {
    const object = node.object.type === 'MemberExpression' ? nameOf(node.object) : nameOf(node.object);
    return `${object ?? '?'}.${nameOf(node) ?? '?'}`;
  }
  return '?';
}

class ScriptWalk {
  /** Values of `const x = …` and `x = …`, evaluated when a sink uses them. */
  private bindings = new Map<string, Expr>();
  private cache = new Map<Expr, Val | null>();
  /** Identifiers bound to `new Image()`, createElement('img'/'script'/'iframe'). */
  private elements = new Map<string, string>();
  private walked = 0;
  /** The script reads a canvas's pixels: code built from them is hidden in an image. */
  private readsPixels = false;
  /** Literals an element's `type` is compared with (`el.type === "password"`): a type check, not a read. */
  private typeChecks = new Set<AnyNode>();
  /** Where the functions run on a visitor's click, submit or change are: [start, end] in the code. */
  private userHandlers: Array<[number, number]> = [];

  constructor(
    private readonly ctx: FileContext,
    private readonly base: number,
    private readonly depth: number,
  ) {}

  run(ast: AnyNode) {
    full(ast, (node) => this.bind(node as AnyNode));
    full(ast, (node) => this.visit(node as AnyNode));
  }

  private at(node: { start: number }): number {
    return this.base + node.start;
  }

  private bind(node: AnyNode) {
    if (++this.walked % NODES_PER_TIME_CHECK === 0) this.ctx.checkTime();
    if (node.type === 'BinaryExpression' && EQUALITY.has(node.operator)) {
      // React DOM and form libraries ask whether an input is a password field; that reads no password.
      const [a, b] = [node.left as Expr, node.right as Expr];
      if (b.type === 'Literal' && a.type === 'MemberExpression' && nameOf(a) === 'type')
        this.typeChecks.add(b);
      if (a.type === 'Literal' && b.type === 'MemberExpression' && nameOf(b) === 'type')
        this.typeChecks.add(a);
    }
    this.noteUserHandler(node);
    if (node.type === 'VariableDeclarator' && node.id.type === 'Identifier' && node.init) {
      this.bindings.set(node.id.name, node.init);
      const element = this.elementOf(node.init);
      if (element) this.elements.set(node.id.name, element);
    } else if (
      node.type === 'AssignmentExpression' &&
      node.operator === '=' &&
      node.left.type === 'Identifier'
    ) {
      this.bindings.set(node.left.name, node.right);
      const element = this.elementOf(node.right);
      if (element) this.elements.set(node.left.name, element);
    }
  }

  /** A function registered for a click, submit or change (listener, `on…` property, JSX prop, jQuery shortcut). */
  private noteUserHandler(node: AnyNode) {
    let fn: Expr | undefined;
    if (node.type === 'CallExpression') {
      const prop = nameOf(node.callee);
      const args = node.arguments;
      if (
        (prop === 'addEventListener' || prop === 'on') &&
        USER_EVENTS.has(this.evaluate(args[0])?.s ?? '')
      ) {
        fn = args[1];
      } else if (prop && USER_EVENTS.has(prop) && node.callee.type === 'MemberExpression') fn = args[0];
    } else if (node.type === 'AssignmentExpression' && node.left.type === 'MemberExpression') {
      if (USER_HANDLER_PROPS.has((nameOf(node.left) ?? '').toLowerCase())) fn = node.right;
    } else if (node.type === 'Property' && !node.computed) {
      const key = node.key.type === 'Identifier' ? node.key.name : null;
      if (key && USER_HANDLER_PROPS.has(key.toLowerCase())) fn = node.value as Expr;
    }
    if (fn && isFunction(fn)) this.userHandlers.push([fn.start, fn.end]);
  }

  private inUserHandler(node: AnyNode): boolean {
    return this.userHandlers.some(([start, end]) => node.start >= start && node.end <= end);
  }

  /** The element an expression creates: 'img' for new Image(), the tag of createElement('x'). */
  private elementOf(node: Expr): string | null {
    if (node.type === 'NewExpression' && node.callee.type === 'Identifier' && node.callee.name === 'Image') {
      return 'img';
    }
    if (node.type === 'CallExpression' && nameOf(node.callee) === 'createElement') {
      return this.evaluate(node.arguments[0])?.s.toLowerCase() ?? null;
    }
    return null;
  }

  private visit(node: AnyNode) {
    if (++this.walked % NODES_PER_TIME_CHECK === 0) this.ctx.checkTime();
    switch (node.type) {
      case 'Literal':
        if (typeof node.value === 'string') this.string(node.value, node, false, this.typeChecks.has(node));
        break;
      case 'TemplateElement':
        if (node.value.cooked) this.string(node.value.cooked, node, false);
        break;
      case 'BinaryExpression':
      case 'TemplateLiteral': {
        // A concatenation of pieces: the whole, when it is static and longer than its parts.
        const v = this.evaluate(node);
        if (v && v.s.length > 0) scanString(this.ctx, v.s, this.at(node), this.depth, false);
        break;
      }
      case 'CallExpression':
        this.call(node);
        break;
      case 'NewExpression':
        this.construct(node);
        break;
      case 'ImportExpression':
        this.runsMadeUpCode(node.source, node, 'import()');
        break;
      case 'AssignmentExpression':
        if (node.left.type === 'MemberExpression') this.assign(node.left, node.right, node);
        else if (node.left.type === 'Identifier' && node.left.name === 'location') {
          this.navigate(node.right, node);
        }
        break;
      case 'MemberExpression': {
        const prop = nameOf(node);
        if (prop === 'cookie' && nameOf(node.object) === 'document') this.ctx.facts.sources.add('Cookie');
        else if (prop === 'elements' || prop === 'serialize' || prop === 'serializeArray') {
          this.ctx.facts.sources.add('表单字段');
        }
        break;
      }
      default:
        break;
    }
  }

  private string(s: string, node: { start: number }, decoded: boolean, typeCheck = false) {
    if (!typeCheck && (s.length < 200 ? PASSWORD_WORDS.test(s) : PASSWORD_INPUT.test(s))) {
      this.ctx.facts.sources.add('密码输入');
    }
    scanString(this.ctx, s, this.at(node), this.depth, decoded);
  }

  private call(node: CallExpression) {
    const callee = node.callee;
    // window['ev' + 'al'](…) is eval: a computed name is evaluated like any other string.
    const name =
      calleeName(callee) ??
      (callee.type === 'MemberExpression' && callee.computed
        ? (this.evaluate(callee.property as Expr)?.s ?? null)
        : null);
    const prop = nameOf(callee);
    const path = memberPath(callee);
    const args = node.arguments;
    // Decoders: what they decode is scanned again.
    const decoded = this.evaluateDecoder(node);
    if (decoded !== null) this.string(decoded, node, true);

    if (name === 'fetch') {
      const init = args[1];
      const body = init !== undefined && (init.type !== 'ObjectExpression' || hasProperty(init, 'body'));
      this.sink(args[0], 'fetch', node, body);
    } else if (prop === 'sendBeacon') {
      this.sink(args[0], 'sendBeacon', node, true);
    } else if (prop === 'open' && args.length >= 2 && callee.type === 'MemberExpression') {
      const method = this.evaluate(args[0])?.s ?? '';
      if (/^(get|post|put|patch|delete|head)$/i.test(method)) {
        this.sink(args[1], 'XMLHttpRequest', node, !/^(get|head)$/i.test(method));
      } else if (name === 'open' || path === 'window.open') {
        this.navigate(args[0], node, false);
      }
    } else if (/^(\$|jQuery|axios)\.(ajax|post|get|getJSON|put|request)$/.test(path) || name === 'axios') {
      const first = args[0];
      const url = first?.type === 'ObjectExpression' ? propertyValue(first, 'url') : first;
      this.sink(url, path, node, !/\.(get|getJSON)$/.test(path) || args.length > 1);
    } else if ((prop === 'replace' || prop === 'assign') && isLocation(callee)) {
      this.navigate(args[0], node);
    } else if (prop === 'submit' && args.length === 0 && callee.type === 'MemberExpression') {
      this.ctx.facts.drivesForms = true;
    } else if (prop === 'setAttribute' && args.length >= 2) {
      const attr = this.evaluate(args[0])?.s.toLowerCase();
      if (attr === 'action') this.formAction(args[1]!, node);
      else if (attr === 'src' && callee.type === 'MemberExpression')
        this.source(callee.object, args[1]!, node);
    } else if (prop === 'addEventListener' || prop === 'on') {
      const type = this.evaluate(args[0])?.s.toLowerCase() ?? '';
      if (KEY_EVENTS.has(type)) this.ctx.facts.sources.add('键盘输入');
      if (type === 'paste' || type === 'copy') this.ctx.facts.sources.add('剪贴板');
      // Pushing history again whenever the visitor goes back: the back button is taken away.
      if (type === 'popstate' && args[1] && callsMethod(args[1], 'pushState'))
        this.ctx.addOnce('js.history-trap', 'popstate', {}, this.at(node));
    } else if ((prop === 'readText' || prop === 'read') && path.startsWith('clipboard.')) {
      this.ctx.facts.sources.add('剪贴板');
    } else if (
      prop === 'getData' &&
      callee.type === 'MemberExpression' &&
      sourceOf(callee.object as Expr)
        .split(' ')
        .includes('clipboardData')
    ) {
      // What was copied or pasted is read; a copy handler's setData or React's event wrapper reads nothing.
      this.ctx.facts.sources.add('剪贴板');
    } else if (prop === 'querySelector' || prop === 'querySelectorAll' || prop === 'getElementById') {
      const what = this.evaluate(args[0])?.s ?? '';
      if (PASSWORD_WORDS.test(what)) this.ctx.facts.sources.add('密码输入');
    }

    // Decoded content executed or written: obfuscation.
    const executes =
      path === 'document.write' ||
      path === 'document.writeln' ||
      name === 'eval' ||
      name === 'Function' ||
      ((name === 'setTimeout' || name === 'setInterval') && args[0] !== undefined && !isFunction(args[0]));
    if (prop === 'getImageData') this.readsPixels = true;
    if (executes && args[0] && this.readsPixels && !this.evaluate(args[0])?.complete) {
      this.ctx.add('js.decoded-execution', { fn: name ?? path, decoder: '图片像素' }, this.at(node));
    } else if (executes && args[0] && this.feedsDecoder(args[0])) {
      this.ctx.add(
        'js.decoded-execution',
        { fn: name ?? path, decoder: this.decoderIn(args[0])! },
        this.at(node),
      );
    } else if (prop === 'insertAdjacentHTML' && args[1] && this.feedsDecoder(args[1])) {
      this.ctx.add(
        'js.decoded-execution',
        { fn: 'insertAdjacentHTML', decoder: this.decoderIn(args[1])! },
        this.at(node),
      );
    }
  }

  /** Code made into a module or worker from a data: or blob: URL runs unseen by a reader of the files. */
  private runsMadeUpCode(url: Expr | undefined, node: AnyNode, fn: string) {
    if (!url) return;
    const bound = url.type === 'Identifier' ? this.bindings.get(url.name) : undefined;
    const made = (e: Expr | undefined) =>
      e?.type === 'CallExpression' && nameOf(e.callee) === 'createObjectURL'
        ? 'blob:'
        : this.evaluate(e)?.s.trimStart().toLowerCase().startsWith('data:')
          ? 'data:'
          : null;
    const how = made(url) ?? (bound && bound !== url ? made(bound as Expr) : null);
    if (!how) return;
    this.ctx.add('js.decoded-execution', { fn, decoder: `${how} 地址` }, this.at(node));
    // A data: URL's code is read like the file's own.
    const data = how === 'data:' ? this.evaluate(url)?.s : undefined;
    const comma = data?.indexOf(',') ?? -1;
    if (data && comma > 0) {
      const code = /;base64$/i.test(data.slice(0, comma))
        ? Buffer.from(data.slice(comma + 1), 'base64').toString('utf8')
        : safeDecode(data.slice(comma + 1));
      this.string(code, node, true);
    }
  }

  private construct(node: NewExpression) {
    const name = calleeName(node.callee);
    const args = node.arguments;
    if (name === 'Worker' || name === 'SharedWorker') this.runsMadeUpCode(args[0], node, name);
    if (name === 'WebSocket') this.sink(args[0], 'WebSocket', node, true);
    else if (name === 'EventSource') this.sink(args[0], 'EventSource', node, false);
    else if (name === 'FormData' && args.length > 0) this.ctx.facts.sources.add('表单字段');
    else if (
      name === 'Function' &&
      args.length > 0 &&
      this.readsPixels &&
      !this.evaluate(args[args.length - 1])?.complete
    )
      this.ctx.add('js.decoded-execution', { fn: 'Function', decoder: '图片像素' }, this.at(node));
    else if (name === 'Function' && args.length > 0 && this.feedsDecoder(args[args.length - 1]!)) {
      this.ctx.add(
        'js.decoded-execution',
        { fn: 'Function', decoder: this.decoderIn(args[args.length - 1]!)! },
        this.at(node),
      );
    }
  }

  private assign(left: MemberExpression, right: Expression, node: AnyNode) {
    const prop = nameOf(left);
    if (prop === 'src') this.source(left.object, right, node);
    else if ((prop === 'href' || prop === 'location') && (isLocation(left.object) || isLocation(left))) {
      this.navigate(right, node);
    } else if (prop === 'href' || prop === 'download') {
      this.executable(right, node);
    } else if (prop === 'action') this.formAction(right, node);
    else if (prop === 'innerHTML' || prop === 'outerHTML') {
      if (this.feedsDecoder(right)) {
        this.ctx.add('js.decoded-execution', { fn: prop, decoder: this.decoderIn(right)! }, this.at(node));
      }
    } else if (prop && /^on(keydown|keypress|keyup|input)$/i.test(prop))
      this.ctx.facts.sources.add('键盘输入');
    else if (prop && /^on(paste|copy)$/i.test(prop)) this.ctx.facts.sources.add('剪贴板');
  }

  /** `x.src = url`: a request for an image, a script load, a frame. */
  private source(object: Expr, value: Expr, node: AnyNode) {
    const element =
      object.type === 'Identifier'
        ? this.elements.get(object.name)
        : (this.elementOf(object as Expression) ?? undefined);
    const target = this.externalOf(value);
    if (!target) return;
    if (element === 'script') {
      this.ctx.domain('scripts', target.host);
      this.ctx.addOnce('html.external-script', target.host, { domain: target.host }, this.at(node));
    } else if (element === 'iframe' || element === 'frame') {
      this.ctx.domain('frames', target.host);
    } else if (element === 'img' || !target.complete) {
      this.ctx.facts.sinks.push({ host: target.host, sink: '图片地址', offset: this.at(node) });
    }
  }

  private sink(url: Expr | undefined, sink: string, node: AnyNode, carriesData: boolean) {
    const target = this.externalOf(url);
    if (!target) return;
    if (!carriesData && target.complete) return; // a fixed address fetched: it loads, it doesn't send
    this.ctx.facts.sinks.push({ host: target.host, sink, offset: this.at(node) });
  }

  private formAction(value: Expr, node: AnyNode) {
    this.ctx.facts.drivesForms = true;
    const target = this.externalOf(value);
    if (target) {
      this.ctx.domain('forms', target.host);
      this.ctx.facts.sinks.push({ host: target.host, sink: '脚本提交的表单', offset: this.at(node) });
    }
  }

  private navigate(value: Expr | undefined, node: AnyNode, redirect = true) {
    if (!value) return;
    this.executable(value, node);
    const target = this.externalOf(value);
    if (target && redirect) {
      this.ctx.domain('redirects', target.host);
      // A destination written so that a reader of the file can't see it: the redirect hides where it goes.
      const decoder = this.decoderIn(value);
      // Run by the visitor's click, submit or change: what a link or a form does (as the render's
      // runtime.navigation-on-action), not the page leaving on its own.
      const onAction = !decoder && this.inUserHandler(node);
      const values = { domain: target.host };
      if (decoder) this.ctx.addOnce('js.redirect-hidden', target.host, { ...values, decoder }, this.at(node));
      else if (onAction) this.ctx.addOnce('js.redirect-on-action', target.host, values, this.at(node));
      else this.ctx.addOnce('js.redirect', target.host, values, this.at(node));
      if (!target.complete) {
        const sink = { host: target.host, sink: '页面跳转', offset: this.at(node) };
        this.ctx.facts.sinks.push(onAction ? { ...sink, onAction: true } : sink);
      }
    }
  }

  private executable(value: Expr, node: AnyNode) {
    const v = this.evaluate(value);
    if (v && executableExtension(v.s)) {
      this.ctx.addOnce('link.executable', v.s, { url: v.s.slice(0, 200) }, this.at(node));
    }
  }

  /** The other host an expression's URL names (its static prefix is enough), or null. */
  private externalOf(node: Expr | undefined): { host: string; complete: boolean } | null {
    const v = this.evaluate(node);
    if (!v) return null;
    const target = classifyUrl(v.s);
    if (target.kind !== 'external') return null;
    if (isKnownService(target.host)) return null;
    return { host: target.host, complete: v.complete };
  }

  /** Whether an expression (anywhere inside) calls a decoder or holds a char-code array. */
  private feedsDecoder(node: Expr): boolean {
    return this.decoderIn(node) !== null;
  }

  private decoderIn(node: Expr): string | null {
    let found: string | null = null;
    full(node as AnyNode, (n) => {
      if (found) return;
      const x = n as AnyNode;
      if (x.type === 'CallExpression') {
        const name = nameOf(x.callee);
        if (name && DECODERS.has(name)) found = name === 'fromCharCode' ? 'String.fromCharCode' : name;
      } else if (x.type === 'ArrayExpression' && isCharCodeArray(x)) found = '十六进制数组';
      else if (x.type === 'Identifier') {
        const bound = this.bindings.get(x.name);
        if (bound && bound !== node && bound.type === 'ArrayExpression' && isCharCodeArray(bound)) {
          found = '十六进制数组';
        }
      }
    });
    if (!found && node.type === 'Identifier') {
      const bound = this.bindings.get(node.name);
      if (bound && bound !== node && this.depth < MAX_DEPTH) {
        found = new ScriptWalk(this.ctx, this.base, MAX_DEPTH).decoderIn(bound);
      }
    }
    return found;
  }

  /** A decoder call with a static argument: what it decodes to. */
  private evaluateDecoder(node: CallExpression): string | null {
    const name = nameOf(node.callee);
    if (!name || !(DECODERS.has(name) || name === 'join')) return null;
    const v = this.evaluate(node);
    return v?.complete ? v.s : null;
  }

  /** The static string value of an expression (or its static prefix), else null. */
  evaluate(node: Expr | undefined, depth = 0): Val | null {
    if (!node || depth > 12) return null;
    if (this.cache.has(node)) return this.cache.get(node)!;
    this.cache.set(node, null); // a cycle through bindings reads as unknown
    const v = this.compute(node, depth);
    this.cache.set(node, v);
    return v;
  }

  private compute(node: Expr, depth: number): Val | null {
    switch (node.type) {
      case 'Literal':
        if (typeof node.value === 'string') return { s: node.value, complete: true };
        if (typeof node.value === 'number') return { s: String(node.value), complete: true };
        return null;
      case 'TemplateLiteral': {
        let s = '';
        for (let i = 0; i < node.quasis.length; i++) {
          s += node.quasis[i]!.value.cooked ?? '';
          const expr = node.expressions[i];
          if (!expr) continue;
          const v = this.evaluate(expr, depth + 1);
          if (!v) return { s, complete: false };
          s += v.s;
          if (!v.complete) return { s, complete: false };
        }
        return { s, complete: true };
      }
      case 'BinaryExpression': {
        if (node.operator !== '+') return null;
        const left = this.evaluate(node.left as Expression, depth + 1);
        if (!left) return null;
        if (!left.complete) return left;
        const right = this.evaluate(node.right, depth + 1);
        if (!right) return { s: left.s, complete: false };
        return { s: left.s + right.s, complete: right.complete };
      }
      case 'Identifier': {
        const bound = this.bindings.get(node.name);
        return bound ? this.evaluate(bound, depth + 1) : null;
      }
      case 'CallExpression':
        return this.computeCall(node, depth);
      default:
        return null;
    }
  }

  private computeCall(node: CallExpression, depth: number): Val | null {
    const name = nameOf(node.callee);
    const args = node.arguments;
    const arg = (i: number) => {
      const v = this.evaluate(args[i], depth + 1);
      return v?.complete ? v.s : null;
    };
    switch (name) {
      case 'atob': {
        const s = arg(0);
        return s === null ? null : { s: Buffer.from(s, 'base64').toString('latin1'), complete: true };
      }
      case 'decodeURIComponent':
      case 'decodeURI':
      case 'unescape': {
        const s = arg(0);
        return s === null ? null : { s: percentDecode(s), complete: true };
      }
      case 'fromCharCode': {
        const codes = this.charCodes(args, depth);
        return codes === null ? null : { s: String.fromCharCode(...codes), complete: true };
      }
      case 'apply': {
        // String.fromCharCode.apply(null, [..])
        if (
          node.callee.type !== 'MemberExpression' ||
          nameOf(node.callee.object as Expression) !== 'fromCharCode'
        ) {
          return null;
        }
        const list = this.arrayOf(args[1]);
        const codes = list ? this.charCodes(list.elements, depth) : null;
        return codes === null ? null : { s: String.fromCharCode(...codes), complete: true };
      }
      case 'join': {
        if (node.callee.type !== 'MemberExpression') return null;
        const sep = args.length === 0 ? ',' : arg(0);
        if (sep === null) return null;
        const parts = this.partsOf(node.callee.object as Expression, depth);
        return parts === null ? null : { s: parts.join(sep), complete: true };
      }
      case 'concat': {
        if (node.callee.type !== 'MemberExpression') return null;
        const head = this.evaluate(node.callee.object as Expression, depth + 1);
        if (!head?.complete) return null;
        let s = head.s;
        for (let i = 0; i < args.length; i++) {
          const v = arg(i);
          if (v === null) return { s, complete: false };
          s += v;
        }
        return { s, complete: true };
      }
      default:
        return null;
    }
  }

  /** The strings of `[..]`, `s.split('')` (reversed by `.reverse()`), `[..].map(c => fromCharCode(c))`. */
  private partsOf(node: Expression, depth: number): string[] | null {
    if (node.type === 'ArrayExpression' || node.type === 'Identifier') {
      const list = this.arrayOf(node);
      if (!list) return null;
      const out: string[] = [];
      for (const e of list.elements) {
        const v = e && e.type !== 'SpreadElement' ? this.evaluate(e, depth + 1) : null;
        if (!v?.complete) return null;
        out.push(v.s);
      }
      return out;
    }
    if (node.type !== 'CallExpression' || node.callee.type !== 'MemberExpression') return null;
    const method = nameOf(node.callee);
    const object = node.callee.object as Expression;
    if (method === 'reverse') return this.partsOf(object, depth)?.reverse() ?? null;
    if (method === 'split') {
      const s = this.evaluate(object, depth + 1);
      const sep = this.evaluate(node.arguments[0], depth + 1);
      return s?.complete && sep?.complete ? s.s.split(sep.s) : null;
    }
    if (method === 'map' && node.arguments[0] && /fromCharCode/.test(sourceOf(node.arguments[0]))) {
      const list = this.arrayOf(object);
      const codes = list ? this.charCodes(list.elements, depth) : null;
      return codes ? codes.map((c) => String.fromCharCode(c)) : null;
    }
    return null;
  }

  private arrayOf(node: Expr | undefined | null): ArrayExpression | null {
    if (!node) return null;
    if (node.type === 'ArrayExpression') return node;
    if (node.type === 'Identifier') {
      const bound = this.bindings.get(node.name);
      return bound?.type === 'ArrayExpression' ? bound : null;
    }
    return null;
  }

  private charCodes(args: ReadonlyArray<Expr | null>, depth: number): number[] | null {
    const out: number[] = [];
    for (const a of args) {
      if (!a) return null;
      if (a.type === 'SpreadElement') {
        const list = this.arrayOf(a.argument);
        const inner = list ? this.charCodes(list.elements, depth) : null;
        if (!inner) return null;
        for (const c of inner) out.push(c);
        // The cap holds for spread lists too: six spreads of a 100,000-code list made 600,000
        // arguments to fromCharCode, past the stack, and the page's check ended incomplete.
        if (out.length > 100_000) return null;
        continue;
      }
      const v =
        a.type === 'Literal' && typeof a.value === 'number'
          ? a.value
          : Number(this.evaluate(a, depth + 1)?.s);
      if (!Number.isInteger(v) || v < 0 || v > 0xffff) return null;
      out.push(v);
      if (out.length > 100_000) return null;
    }
    return out;
  }
}

/** Acorn keeps no source on nodes: the callback's text is rebuilt only for the fromCharCode test. */
function sourceOf(node: Expr): string {
  let names = '';
  full(node as AnyNode, (n) => {
    const x = n as AnyNode;
    if (x.type === 'Identifier') names += ` ${x.name}`;
    else if (x.type === 'MemberExpression' && x.property.type === 'Identifier')
      names += ` ${x.property.name}`;
  });
  return names;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Whether a function (or any expression) calls a method of that name anywhere inside. */
function callsMethod(node: Expr, method: string): boolean {
  let found = false;
  full(node as AnyNode, (n) => {
    const x = n as AnyNode;
    if (!found && x.type === 'CallExpression' && nameOf(x.callee) === method) found = true;
  });
  return found;
}

const isFunction = (node: Expr): boolean =>
  node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';

function isLocation(node: Expr): boolean {
  if (node.type === 'Identifier') return node.name === 'location';
  if (node.type === 'MemberExpression') {
    return (
      nameOf(node) === 'location' || (nameOf(node.object) === 'location' && node.object.type !== 'Super')
    );
  }
  return false;
}

function hasProperty(node: ObjectExpression, key: string): boolean {
  return propertyValue(node, key) !== undefined;
}

function propertyValue(node: ObjectExpression, key: string): Expression | undefined {
  for (const p of node.properties) {
    if (p.type !== 'Property') continue;
    const name =
      p.key.type === 'Identifier' ? p.key.name : p.key.type === 'Literal' ? String(p.key.value) : null;
    if (name === key) return p.value as Expression;
  }
  return undefined;
}

function isCharCodeArray(node: ArrayExpression): boolean {
  if (node.elements.length < 8) return false;
  return node.elements.every(
    (e) =>
      e?.type === 'Literal' &&
      typeof e.value === 'number' &&
      Number.isInteger(e.value) &&
      e.value >= 0 &&
      e.value <= 0xffff,
  );
}

/** At the end of a file: each request to another host, high when the file also reads input. */
export function judgeSinks(ctx: FileContext, inherited: readonly string[] = []) {
  const all = [...new Set([...ctx.facts.sources, ...inherited])];
  for (const s of ctx.facts.sinks) {
    // A form service receives what visitors write (services.ts `messages`): a form read and sent
    // there is its purpose; a password, card or ID field, keys, clipboard or cookies are not.
    const service = isFormService(s.host);
    const sources = service ? all.filter((x) => x !== '表单字段') : all;
    if (service && sources.length === 0) continue;
    // A page the visitor's click or submit opens, with what was typed in its address, is a GET
    // form; it counts when passwords, keys, clipboard or cookies are read, not as a request alone.
    if (s.onAction && sources.length === 0) continue;
    if (sources.length > 0) {
      ctx.addOnce(
        'js.network-sink-input',
        s.host,
        { domain: s.host, sink: s.sink, source: sources.join('、') },
        s.offset,
      );
    } else {
      ctx.addOnce('js.network-sink', s.host, { domain: s.host, sink: s.sink }, s.offset);
    }
  }
}
