// Progressive enhancement only: every page works without this file. It adds copy buttons.
(function () {
  'use strict';
  if (!navigator.clipboard) return;
  document.querySelectorAll('button.copy[data-copy]').forEach(function (button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(
        function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = label; }, 2000); },
        function () { button.textContent = 'Select and copy'; }
      );
    });
  });
})();
