/*
 * The pages' only script (api/pages/): progressive enhancement. Every step works without it; with
 * it: copy buttons, countdowns, the live refresh of <main> (polls its data-live-url and swaps the
 * content when the state key changes), and paying with an injected EIP-1193 wallet.
 */
(function () {
  'use strict';
  var main = document.getElementById('main');

  // What works only with this script is rendered `hidden data-js-only` (copy buttons, the live note, countdowns).
  function reveal() {
    document.querySelectorAll('[data-js-only][hidden]').forEach(function (el) { el.hidden = false; });
    var wallet = document.querySelector('[data-eip1193]');
    if (wallet && window.ethereum && typeof window.ethereum.request === 'function') wallet.hidden = false;
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('button[data-copy]');
    if (btn) {
      var src = document.getElementById(btn.getAttribute('data-copy'));
      if (!src || !navigator.clipboard) return;
      navigator.clipboard.writeText(src.textContent.trim()).then(function () {
        var label = btn.textContent;
        btn.textContent = btn.getAttribute('data-copied') || label;
        setTimeout(function () { btn.textContent = label; }, 1500);
      });
      return;
    }
    var pay = ev.target.closest && ev.target.closest('button[data-eip1193-pay]');
    if (pay) payWithInjectedWallet(pay.closest('[data-eip1193]'));
  });

  // A group shown only for one choice (`data-show-if="name=value"`): hidden while another value of that radio is chosen; all shown without a choice.
  function toggleGroups() {
    document.querySelectorAll('[data-show-if]').forEach(function (el) {
      var rule = el.getAttribute('data-show-if').split('=');
      var chosen = document.querySelector('input[type=radio][name="' + rule[0] + '"]:checked');
      el.hidden = !!chosen && chosen.value !== rule[1];
    });
  }
  document.addEventListener('change', function (ev) { if (ev.target && ev.target.type === 'radio') toggleGroups(); });

  // A countdown to `data-countdown`: `data-left-text` with {time} as m:ss, then `data-expired-text`.
  function tick() {
    document.querySelectorAll('[data-countdown]').forEach(function (el) {
      var left = Math.floor((Date.parse(el.getAttribute('data-countdown')) - Date.now()) / 1000);
      if (isNaN(left)) return;
      if (left <= 0) { el.textContent = el.getAttribute('data-expired-text') || '0:00'; return; }
      var m = Math.floor(left / 60), s = left % 60;
      var time = m + ':' + (s < 10 ? '0' : '') + s;
      el.textContent = (el.getAttribute('data-left-text') || '{time}').replace('{time}', time);
    });
  }

  var polling = false;
  function poll() {
    var url = main && main.getAttribute('data-live-url');
    if (!url || polling || document.hidden) return;
    polling = true;
    fetch(url, { headers: { accept: 'application/json' }, cache: 'no-store' }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (data) {
      if (data && data.state !== main.getAttribute('data-state')) {
        var focused = document.activeElement && document.activeElement.id;
        main.innerHTML = data.html;
        main.setAttribute('data-state', data.state);
        reveal();
        tick();
        if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
      }
    }).catch(function () { /* offline: try again next tick */ }).then(function () { polling = false; });
  }

  function payWithInjectedWallet(box) {
    var status = box.querySelector('[data-eip1193-status]');
    var eth = window.ethereum;
    status.textContent = box.getAttribute('data-working');
    eth.request({ method: 'eth_requestAccounts' }).then(function (accounts) {
      var body = new URLSearchParams({ from_address: accounts[0] });
      return fetch(box.getAttribute('data-eip1193'), { method: 'POST', body: body, headers: { accept: 'application/json' } }).then(function (r) { return r.json(); });
    }).then(function (out) {
      if (out.error) throw new Error(out.error.message);
      var tx = out.unsigned_transaction;
      return eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x' + tx.chain_id.toString(16) }] }).catch(function () { return null; }).then(function () {
        return eth.request({ method: 'eth_sendTransaction', params: [{ from: tx.from, to: tx.to, data: tx.data, value: '0x0' }] });
      });
    }).then(function () { status.textContent = ''; poll(); }, function (err) {
      status.textContent = box.getAttribute('data-failed') + (err && err.message ? ' ' + err.message : '');
    });
  }

  reveal();
  toggleGroups();
  tick();
  setInterval(tick, 1000);
  if (main && main.getAttribute('data-live-url')) setInterval(poll, 2500);
})();
