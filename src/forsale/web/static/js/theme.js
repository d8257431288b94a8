// @ts-check
// Apply the saved theme before the first paint, so a dark page never flashes light.
// A classic script loaded from the page's <head> (not a module, which runs only after parsing): the page's
// Content-Security-Policy allows no inline script, so this cannot sit in index.html itself.
(function () {
  var t = null;
  try { t = localStorage.getItem("forsale.theme"); } catch (e) {}
  if (!t) t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  document.documentElement.dataset.theme = t;
})();
