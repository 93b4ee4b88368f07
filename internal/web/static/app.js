'use strict';
// The page of `melmux web`: the session's panes as text in the DOM, fed by
// changed rows over one WebSocket. Nothing here is trusted by the server:
// it checks every message against the login.
(() => {
  const $ = (id) => document.getElementById(id);
  const phone = window.matchMedia('(max-width: 700px)');
  let ws = null, opened = false, readOnly = false, state = null, writer = '';
  let tab = -1, shown = 0, focus = 0, watched = '', retry = 500;
  const panes = new Map(); // id -> {el, scr, rows: []}
  const asked = new Set(); // panes whose question was notified
  const turns = new Map(); // pane -> its agent's state and since, as last seen

  function say(m) { $('msg').textContent = m; }

  async function login(body) {
    const r = await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });
    if (!r.ok) throw new Error((await r.text()).trim() || r.statusText);
    return r.json();
  }

  function showLogin(m) {
    $('app').hidden = true;
    $('login').hidden = false;
    $('loginmsg').textContent = m || '';
    $('token').focus();
  }

  $('login').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await login({ token: $('token').value.trim() });
      $('token').value = '';
      connect();
    } catch (err) { $('loginmsg').textContent = err.message; }
  });

  function connect() {
    opened = false;
    ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
    ws.onopen = () => { opened = true; retry = 500; watched = ''; $('login').hidden = true; $('app').hidden = false; $('status').textContent = 'live'; };
    ws.onmessage = (ev) => { let m; try { m = JSON.parse(ev.data); } catch { return; } handle(m); };
    ws.onclose = (ev) => {
      if (!opened) { showLogin(''); return; }
      $('status').textContent = 'disconnected' + (ev.reason ? ': ' + ev.reason : '') + '; reconnecting';
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    };
  }

  function send(m) { if (ws && ws.readyState === 1) ws.send(JSON.stringify(m)); }

  function handle(m) {
    switch (m.t) {
      case 'hello': readOnly = m.read_only; $('typebar').hidden = readOnly; $('status').textContent = 'live as ' + m.name + (readOnly ? ' (read-only)' : ''); break;
      case 'state': state = m.state; writer = m.writer; readOnly = m.read_only; layout(); break;
      case 'screen': paint(m); break;
      case 'history': gotHistory(m); break;
      case 'answered': say(m.msg); break;
      case 'error': say(m.msg); break;
    }
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function button(text, fn, cls) { const b = el('button', cls, text); b.type = 'button'; b.addEventListener('click', fn); return b; }

  function layout() {
    const s = state;
    $('session').textContent = s.session;
    document.title = 'melmux ' + s.session;
    if (tab < 0 || tab >= s.tabs.length) tab = s.active;
    const all = s.tabs.flatMap((t) => t.panes);
    if (!all.some((p) => p.id === focus)) focus = s.focused;
    if (!all.some((p) => p.id === shown)) shown = focus;
    $('tabs').replaceChildren(...s.tabs.map((t, i) => button((i + 1) + (t.name ? ' ' + t.name : ''), () => { tab = i; layout(); }, i === tab ? 'on' : '')));
    $('panepick').replaceChildren(...all.map((p) => button(p.id + ' ' + (p.title || ''), () => { shown = focus = p.id; layout(); }, p.id === shown ? 'on' : '')));
    const take = $('take');
    take.hidden = readOnly || writer !== 'other';
    agents(s.agents || []);
    const list = phone.matches ? all.filter((p) => p.id === shown) : s.tabs[tab].panes;
    const ids = list.map((p) => p.id);
    for (const [id, p] of panes) if (!ids.includes(id)) { p.el.remove(); panes.delete(id); }
    const box = $('panes');
    let maxW = 0, maxH = 0;
    for (const info of list) {
      let p = panes.get(info.id);
      if (!p) {
        p = newPane(info.id);
        box.append(p.el);
        panes.set(info.id, p);
      }
      p.title.textContent = info.id + ' ' + (info.title || '') + (info.state ? ' [' + info.state + ']' : '');
      const st = p.el.style;
      st.left = info.x + 'ch'; st.top = (info.y * 1.2) + 'em'; st.width = info.w + 'ch'; st.height = ((info.h + 1) * 1.2) + 'em';
      p.body.style.height = (info.h * 1.2) + 'em';
      p.el.classList.toggle('shown', info.id === shown);
      maxW = Math.max(maxW, info.x + info.w); maxH = Math.max(maxH, info.y + info.h + 1);
    }
    box.style.width = phone.matches ? '' : maxW + 'ch';
    box.style.height = phone.matches ? '' : (maxH * 1.2) + 'em';
    box.style.font = '13px/1.2 monospace';
    mark();
    const w = JSON.stringify(ids);
    if (w !== watched) { watched = w; send({ t: 'watch', panes: ids }); }
  }

  // A pane: its title, then its body, which holds the history read so
  // far (while scrolled back) above the screen, and the bar that says the
  // view is in the history.
  function newPane(id) {
    const e = el('div', 'pane');
    e.tabIndex = 0;
    e.dataset.pane = id;
    const head = el('div', 'title'), title = el('span');
    const body = el('div', 'body'), hist = el('div', 'hist'), gap = el('div', 'gap'), pre = el('pre', 'screen');
    const bar = el('div', 'backbar'), where = el('span');
    gap.hidden = bar.hidden = true;
    body.append(hist, gap, pre);
    const p = { id, el: e, title, body, hist, gap, pre, bar, where, rows: [], back: false, asking: false, first: 0, last: 0, oldest: 0, top: 0, up: 0 };
    head.append(title, button('⇞ history', () => back(p, body.clientHeight), 'histbtn'));
    bar.append(where, button('⤓ live', () => { toLive(p); e.focus(); }, 'live'));
    e.append(head, body, bar);
    e.addEventListener('focus', () => { focus = id; mark(); });
    e.addEventListener('keydown', keydown);
    // The wheel or a finger moving down over a pane at its screen enters
    // its history; once in it, the body scrolls as any page does.
    body.addEventListener('wheel', (ev) => {
      if (p.back || ev.deltaY >= 0) return;
      ev.preventDefault();
      back(p, -ev.deltaY * (ev.deltaMode === 1 ? rowPx(p) : ev.deltaMode === 2 ? body.clientHeight : 1));
    }, { passive: false });
    let touchY = null;
    body.addEventListener('touchstart', (ev) => { touchY = ev.touches[0].clientY; }, { passive: true });
    body.addEventListener('touchmove', (ev) => {
      if (!p.back && touchY !== null && ev.touches[0].clientY - touchY > 24) { touchY = null; back(p, body.clientHeight / 2); }
    }, { passive: true });
    body.addEventListener('scroll', () => scrolled(p), { passive: true });
    return p;
  }

  // History: read from the session a page of rows at a time as the view
  // nears the rows read so far, at most KEEP rows kept (the farthest from
  // the view go). Output goes on meanwhile: the screen below changes, and
  // the lines that scroll off it are read when the view comes near them,
  // so the view stays where the person put it.
  const PAGE = 200, KEEP = 5000;
  function rowPx(p) { return (p.pre.firstElementChild || p.pre).offsetHeight || 16; }
  function back(p, px) {
    if (p.back) { p.body.scrollTop -= px; return; }
    p.back = true;
    p.up = Math.max(px, 3 * rowPx(p));
    p.el.classList.add('back');
    ask(p, {});
  }
  function ask(p, q) {
    if (p.asking) return;
    p.asking = true;
    send(Object.assign({ t: 'history', pane: p.id, n: PAGE }, q));
  }
  function toLive(p) {
    p.back = false;
    p.el.classList.remove('back');
    p.hist.replaceChildren();
    p.gap.hidden = p.bar.hidden = true;
    p.first = p.last = 0;
    p.body.scrollTop = 0;
  }
  function keep(p, fromTop) {
    const b = p.body;
    while (p.last - p.first > KEEP) {
      if (fromTop) {
        const h = b.scrollHeight;
        p.hist.firstElementChild.remove(); p.first++;
        b.scrollTop -= h - b.scrollHeight;
      } else { p.hist.lastElementChild.remove(); p.last--; }
    }
  }
  function gotHistory(m) {
    const p = panes.get(m.pane);
    if (!p) return;
    p.asking = false;
    if (!p.back) return;
    if (m.gone) { toLive(p); return; }
    p.oldest = m.oldest; p.top = Math.max(p.top, m.top);
    const rows = m.lines.map((runs) => { const d = el('div'); d.append(...runs.map(runEl)); return d; });
    const b = p.body;
    if (!p.hist.firstChild) {
      if (!rows.length) { toLive(p); say('pane ' + p.id + ' has no history'); return; }
      p.hist.append(...rows);
      p.first = m.first; p.last = m.first + rows.length;
      b.scrollTop = b.scrollHeight - b.clientHeight - p.up;
      p.up = 0;
    } else if (rows.length && m.first + rows.length === p.first) {
      const h = b.scrollHeight;
      p.hist.prepend(...rows);
      p.first = m.first;
      b.scrollTop += b.scrollHeight - h;
      keep(p, false);
    } else if (rows.length && m.first === p.last) {
      p.hist.append(...rows);
      p.last += rows.length;
      keep(p, true);
    }
    p.bar.hidden = false;
    scrolled(p);
  }
  function scrolled(p) {
    if (!p.back) return;
    const b = p.body, view = b.clientHeight;
    if (p.hist.firstChild && b.scrollTop + view >= b.scrollHeight - 2) { toLive(p); return; }
    const newer = p.top - p.last;
    p.gap.hidden = newer <= 0;
    p.gap.textContent = '⋯ ' + newer + ' newer line' + (newer === 1 ? '' : 's');
    p.where.textContent = 'history: lines ' + (p.first - p.oldest + 1) + '–' + (p.last - p.oldest) + ' of ' + (p.top - p.oldest) + ' ';
    if (p.asking || !p.hist.firstChild) return;
    if (b.scrollTop < view && p.first > p.oldest) ask(p, { before: p.first });
    else if (newer > 0 && p.gap.offsetTop - (b.scrollTop + view) < view) ask(p, { after: p.last });
  }

  function mark() { for (const [id, p] of panes) p.el.classList.toggle('focus', id === focus); }

  function agents(rows) {
    const items = rows.map((r) => {
      const a = r.agent, li = el('li', a.state);
      li.dataset.pane = r.pane;
      li.append(el('b', '', r.pane + ' ' + r.name), ' ', el('span', 'state', a.state), ' ', el('span', '', r.title || ''));
      const q = a.question;
      if (q) {
        li.append(el('div', 'q', q.text + (q.input ? '\n' + q.input : '')));
        if (!readOnly) for (const o of q.options || []) li.append(button(o.key + '  ' + o.label, () => send({ t: 'answer', pane: r.pane, choice: o.key, question: q.text }), 'opt'));
        if (!asked.has(r.pane)) { asked.add(r.pane); notify('melmux: pane ' + r.pane + ' asks', q.text, r.pane); }
      } else asked.delete(r.pane);
      // A turn ends where a working agent stops working without asking
      // (idle at its prompt, or a melmux agent waiting for its next
      // message). The page tells each end it sees once: a reconnect sends
      // the same state again, and a page loaded anew starts from what it
      // is first sent, telling nothing of turns that ended before.
      const was = turns.get(r.pane);
      if (was && was.state === 'working' && a.state !== 'working' && a.state !== 'exited' && !q && was.since !== r.since) {
        notify('melmux: pane ' + r.pane + ' finished its turn', r.name + (r.title ? ': ' + r.title : ''), r.pane);
      }
      turns.set(r.pane, { state: a.state, since: r.since });
      li.addEventListener('click', (e) => { if (e.target.tagName !== 'BUTTON') { shown = focus = r.pane; tab = r.tab; layout(); } });
      return li;
    });
    $('agentlist').replaceChildren(...items);
  }

  // notify tells the person, when they allowed it and look elsewhere; a
  // pane's newer notification takes the place of its older one.
  function notify(title, body, pane) {
    if (!('Notification' in window) || Notification.permission !== 'granted' || document.hasFocus()) return;
    new Notification(title, { body, tag: 'melmux-' + pane });
  }
  if ('Notification' in window && Notification.permission === 'default') {
    const b = $('notify');
    b.hidden = false;
    b.addEventListener('click', () => Notification.requestPermission().then(() => { b.hidden = true; }));
  }

  const basic = ['#000000', '#cd0000', '#00cd00', '#cdcd00', '#0000ee', '#cd00cd', '#00cdcd', '#e5e5e5',
    '#7f7f7f', '#ff0000', '#00ff00', '#ffff00', '#5c5cff', '#ff00ff', '#00ffff', '#ffffff'];
  function css(c) {
    if (c < 0) return '';
    if (c >= 0x1000000) return '#' + (c & 0xffffff).toString(16).padStart(6, '0');
    if (c < 16) return basic[c];
    if (c < 232) { const v = [0, 95, 135, 175, 215, 255], i = c - 16; return 'rgb(' + v[Math.floor(i / 36)] + ',' + v[Math.floor(i / 6) % 6] + ',' + v[i % 6] + ')'; }
    const g = 8 + (c - 232) * 10; return 'rgb(' + g + ',' + g + ',' + g + ')';
  }

  function runEl(run) {
    const [text, fg = -1, bg = -1, f = 0] = run;
    if (fg < 0 && bg < 0 && f === 0) return document.createTextNode(text);
    const s = el('span', '', text);
    let cf = css(fg), cb = css(bg);
    if (f & 32) { [cf, cb] = [cb || 'var(--bg)', cf || 'var(--fg)']; }
    if (cf) s.style.color = cf;
    if (cb) s.style.background = cb;
    if (f & 1) s.classList.add('b');
    if (f & 2) s.classList.add('d');
    if (f & 4) s.classList.add('i');
    if (f & 8) s.classList.add('u');
    if (f & 64) s.classList.add('h');
    if (f & 128) s.classList.add('s');
    if (f & 256) s.classList.add('w');
    if (f & 512) { s.classList.add('cur'); s.classList.add('on'); }
    return s;
  }

  function paint(m) {
    const p = panes.get(m.pane);
    if (!p) return;
    if (m.gone) { toLive(p); p.pre.replaceChildren(el('div', '', '(the pane is gone)')); p.rows = []; return; }
    if (m.full || p.rows.length !== m.rows) {
      // A resize numbers the history anew: the view goes back to the screen.
      if (p.back) toLive(p);
      p.rows = [];
      for (let y = 0; y < m.rows; y++) p.rows.push(el('div'));
      p.pre.replaceChildren(...p.rows);
    }
    for (const [y, runs] of m.lines || []) if (p.rows[y]) p.rows[y].replaceChildren(...runs.map(runEl));
    p.top = m.hist;
    scrolled(p);
  }

  function keyName(e) {
    const named = { Enter: 'Enter', Tab: 'Tab', Escape: 'Esc', Backspace: 'Backspace', ArrowUp: 'Up', ArrowDown: 'Down', ArrowLeft: 'Left', ArrowRight: 'Right',
      Home: 'Home', End: 'End', PageUp: 'PgUp', PageDown: 'PgDn', Delete: 'Del', Insert: 'Ins' };
    let mods = '';
    if (e.ctrlKey) mods += 'C-';
    if (e.altKey) mods += 'M-';
    if (named[e.key]) return '<' + (e.shiftKey && e.key === 'Tab' ? 'S-' : '') + mods + named[e.key] + '>';
    if (/^F([1-9]|1[0-2])$/.test(e.key)) return '<' + mods + e.key + '>';
    if (mods && [...e.key].length === 1) return '<' + mods + e.key.toLowerCase() + '>';
    return '';
  }

  function keydown(e) {
    // A read-only login's keys go too: the server refuses them and says so.
    if (e.metaKey) return;
    const k = keyName(e);
    // Typing goes back to the screen, as in a terminal.
    const p = panes.get(focus);
    if (p && p.back && (k || [...e.key].length === 1)) toLive(p);
    if (k) { e.preventDefault(); send({ t: 'key', pane: focus, key: k }); return; }
    if ([...e.key].length === 1) { e.preventDefault(); send({ t: 'text', pane: focus, text: e.key }); }
  }
  document.addEventListener('paste', (e) => {
    if (!document.activeElement || !document.activeElement.classList.contains('pane')) return;
    e.preventDefault();
    send({ t: 'text', pane: focus, text: e.clipboardData.getData('text') });
  });

  $('typebar').addEventListener('submit', (e) => {
    e.preventDefault();
    const line = $('line');
    if (line.value) send({ t: 'text', pane: focus, text: line.value });
    send({ t: 'key', pane: focus, key: '<Enter>' });
    line.value = '';
  });
  const keys = [['Esc', '<Esc>'], ['Tab', '<Tab>'], ['^C', '<C-c>'], ['↑', '<Up>'], ['↓', '<Down>'], ['←', '<Left>'], ['→', '<Right>'], ['⏎', '<Enter>']];
  $('keys').replaceChildren(...keys.map(([l, k]) => button(l, () => send({ t: 'key', pane: focus, key: k }))));
  $('take').addEventListener('click', () => send({ t: 'take' }));
  phone.addEventListener('change', () => state && layout());

  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code) {
    history.replaceState(null, '', location.pathname);
    login({ code }).then(connect, (err) => showLogin(err.message));
  } else connect();
})();
