// Progressive enhancement only: every page works without this file. It adds copy buttons, and on the
// usage page a button that fills in the browser's own time zone.
(function () {
  'use strict';
  if (navigator.clipboard) {
    document.querySelectorAll('button.copy[data-copy]').forEach(function (button) {
      var target = document.getElementById(button.getAttribute('data-copy'));
      if (!target) return;
      var label = button.textContent;
      button.hidden = false;
      // A key shown once: focus goes straight to its Copy button, the one thing to do next.
      if (button.closest('.shown-key')) button.focus();
      button.addEventListener('click', function () {
        navigator.clipboard.writeText(target.textContent.trim()).then(
          function () { button.textContent = 'Copied'; setTimeout(function () { button.textContent = label; }, 2000); },
          function () { button.textContent = 'Select and copy'; }
        );
      });
    });
  }

  var zoneField = document.querySelector('input[data-browser-zone]');
  var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (zoneField && zone && zone !== zoneField.value) {
    var use = document.createElement('button');
    use.type = 'button';
    use.className = 'link';
    use.textContent = 'Use my time zone (' + zone + ')';
    use.addEventListener('click', function () {
      zoneField.value = zone;
      zoneField.form.submit();
    });
    zoneField.parentNode.appendChild(use);
  }
})();
