/**
 * A script error the render saw, in the reviewer's words (docs/content-check.md "Runtime rules"):
 * Chromium writes V8's and the DOM's messages in English; the finding names the kind of error and,
 * for the common messages, says what went wrong in Chinese. The original text stays the excerpt.
 */
import { SCRIPT_ERROR_LABELS } from '@sitehall/contracts/messages';

const DETAILS: Array<[RegExp, (m: RegExpExecArray) => string]> = [
  [/^(\S+) is not defined/, (m) => `“${m[1]}”未定义`],
  [
    /^Cannot read propert(?:y|ies) of (undefined|null)(?: \(reading '([^']*)'\))?/,
    (m) => `无法读取 ${m[1]} 的属性${m[2] ? `“${m[2]}”` : ''}`,
  ],
  [
    /^Cannot set propert(?:y|ies) of (undefined|null)(?: \(setting '([^']*)'\))?/,
    (m) => `无法设置 ${m[1]} 的属性${m[2] ? `“${m[2]}”` : ''}`,
  ],
  [/^(\S+) is not a function/, (m) => `“${m[1]}”不是函数`],
  [/^(\S+) is not a constructor/, (m) => `“${m[1]}”不能用 new 调用`],
  [/^(\S+) is not iterable/, (m) => `“${m[1]}”不能遍历`],
  [/^Assignment to constant variable/, () => '给常量重新赋值'],
  [/^Unexpected end of (?:input|JSON input)/, () => '代码或 JSON 意外结束'],
  [/^Unexpected token '?([^']*)'?/, (m) => `意外的符号“${m[1]}”`],
  [/^Invalid or unexpected token/, () => '无效的符号'],
  [/^Identifier '([^']*)' has already been declared/, (m) => `“${m[1]}”重复声明`],
  [/^Cannot use import statement outside a module/, () => '在非模块脚本中使用了 import'],
  [/^Failed to fetch/, () => '网络请求失败'],
  [/^Maximum call stack size exceeded/, () => '递归过深，调用栈溢出'],
  [/Failed to read the '(\w+)' property/, (m) => `无法读取 ${m[1]}`],
  [/blocked by CORS policy/, () => '跨域请求被浏览器拦截'],
  [/Refused to (?:execute|load|apply|connect)/, () => '内容安全策略拒绝了该资源'],
  [/^Script error\.?$/, () => '跨域脚本出错，浏览器未给出详情'],
];

/** 'Uncaught TypeError: x is not a function' → { kind: '类型错误', detail: '“x”不是函数' }. */
export function describeScriptError(text: string): { kind: string; detail: string } {
  const body = text.replace(/^Uncaught (?:\(in promise\) )?/, '').trim();
  const named = /^([A-Z]\w*(?:Error|Exception))(?::\s*|$)/.exec(body);
  const name = named?.[1] ?? 'Error';
  const rest = named ? body.slice(named[0].length) : body;
  const kind = SCRIPT_ERROR_LABELS[name] ?? SCRIPT_ERROR_LABELS.Error ?? '脚本错误';
  for (const [re, say] of DETAILS) {
    const m = re.exec(rest);
    if (m) return { kind, detail: say(m) };
  }
  return { kind, detail: '原文见摘录' };
}
