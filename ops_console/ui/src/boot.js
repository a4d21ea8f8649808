// Runs before the first paint (a classic script in <head>): applies the theme the user chose last
// on this device, which lib/session.js keeps in localStorage (a display preference, never a
// credential). "system", or nothing stored yet, follows the device through the stylesheet's
// prefers-color-scheme rules. The server's preference wins once /api/auth/me has answered.
(function () {
  var theme = null;
  try { theme = window.localStorage.getItem('ops.theme'); } catch (e) { /* storage disabled */ }
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
})();
