// The page's own glue, as a CMS editor would paste it: wires buttons to window.svc and shows the event log.
// Server data is shown with textContent only, never as HTML.
(function () {
  window.addEventListener('svc:event', function (e) {
    var li = document.createElement('li');
    var d = e.detail;
    li.textContent = d.timestamp.slice(11, 19) + '  ' + d.type + '  ' + d.name + (d.data ? '  ' + JSON.stringify(d.data) : '');
    var log = document.getElementById('log');
    log.prepend(li);
    while (log.children.length > 30) log.lastElementChild.remove();
  });

  // One price format for the page's own markup: the catalog's amount and currency in the page's language.
  function formatPrices() {
    var lang = document.documentElement.lang || undefined;
    document.querySelectorAll('data[data-currency]').forEach(function (el) {
      var amount = Number(el.value);
      if (!el.value || !isFinite(amount)) return;
      try {
        el.textContent = new Intl.NumberFormat(lang, { style: 'currency', currency: el.dataset.currency }).format(amount);
      } catch (e) {
        // an unknown currency code (RangeError): the price stays as the markup wrote it
      }
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    formatPrices();
    // The snippet's stub runs this once the SDK has loaded (at once if it already has).
    window.svc.ready(function (svc) {
      var cart = [];
      var state = document.getElementById('optin-state');
      function showState() { state.textContent = svc.isUserOptIn() ? 'on' : 'off'; }
      showState();
      document.addEventListener('click', function (e) {
        var t = e.target.closest('button');
        if (!t) return;
        if (t.dataset.view) svc.productView(t.dataset.view);
        if (t.dataset.add) { svc.productAdd({ productId: t.dataset.add }); cart.push({ productId: t.dataset.add }); }
        if (t.id === 'order' && cart.length) { svc.productOrdered(cart); cart = []; }
        if (t.id === 'logout') svc.logOut();
        if (t.id === 'optout') { svc.optOut(); showState(); }
        if (t.id === 'optin') { svc.optIn(); showState(); }
      });
      document.getElementById('login').addEventListener('submit', function (e) {
        e.preventDefault();
        var userId = new FormData(e.target).get('userId');
        if (userId) svc.identify({ userId: String(userId), eventTitle: 'Signed in', userAttributes: { plan: 'demo' } });
      });
    });
  });
})();
