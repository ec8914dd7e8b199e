// Battle Ledger's task pane, as the page loads (a classic script, run before Office.js
// answers): in a browser tab, with no Office host (not framed by Excel on the web, no
// WebView2 or WKWebView bridge, no host info in the address), xlwings' own
// taskpane-reload.js would reload the page three times waiting for Excel. Its reload
// budget is marked spent instead, and battle-ledger.js says plainly what is needed.
(function () {
  var w = window;
  var inHost =
    w.parent !== w ||
    !!(w.chrome && w.chrome.webview) ||
    !!(w.webkit && w.webkit.messageHandlers) ||
    /_host_Info=/i.test(w.location.search + w.location.hash) ||
    !!(w.external && typeof w.external === "object" && "GetContext" in w.external);
  if (inHost) return;
  w.battleLedgerOutsideOffice = true;
  try {
    w.sessionStorage.setItem("xlwingsTaskpaneReloadCount", "1000000");
  } catch (e) {
    // No sessionStorage: xlwings' script then does not reload either.
  }
})();
