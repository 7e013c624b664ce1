// Progressive enhancement only: every page works without this file. It adds copy buttons, focus on the
// first field with an error, a button that fills in the browser's own time zone, and the playground's
// streamed answer (without it the playground form posts and the finished answer comes back as a page).
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

  document.querySelectorAll('form[data-playground]').forEach(function (form) {
    var result = form.nextElementSibling;
    if (!result || !result.hasAttribute('data-playground-result') || !window.fetch || !window.TextDecoder) return;
    var answer = result.querySelector('[data-answer]');
    var problem = result.querySelector('[data-error]');
    var headerRows = result.querySelector('[data-headers]');
    var field = function (name) { return result.querySelector('[data-field="' + name + '"]'); };
    var button = form.querySelector('button[type="submit"]');
    var apply = function (event) {
      if (event.type === 'headers') {
        field('status').textContent = String(event.status);
        field('x-request-id').textContent = event.headers['x-request-id'] || '';
        field('x-router-upstream').textContent = event.headers['x-router-upstream'] || '—';
        if (event.headers['x-quota-used']) field('quota').textContent = event.headers['x-quota-used'] + ' of ' + event.headers['x-quota-limit'] + ' requests';
        Object.keys(event.headers).forEach(function (name) {
          var row = document.createElement('tr');
          var th = document.createElement('th');
          th.scope = 'row';
          th.appendChild(document.createElement('code')).textContent = name;
          row.appendChild(th);
          row.appendChild(document.createElement('td')).appendChild(document.createElement('code')).textContent = event.headers[name];
          headerRows.appendChild(row);
        });
      } else if (event.type === 'delta') {
        answer.textContent += event.text;
      } else if (event.type === 'done') {
        if (event.usage) field('tokens').textContent = event.usage.prompt + ' + ' + event.usage.completion;
      } else if (event.type === 'error') {
        problem.hidden = false;
        problem.textContent = event.code + ': ' + event.message;
      }
    };
    form.addEventListener('submit', function (submitted) {
      submitted.preventDefault();
      result.hidden = false;
      answer.textContent = '';
      problem.hidden = true;
      headerRows.textContent = '';
      ['status', 'x-request-id', 'x-router-upstream', 'tokens', 'quota'].forEach(function (name) { field(name).textContent = ''; });
      button.disabled = true;
      var pending = '';
      var decoder = new TextDecoder();
      fetch(form.action, { method: 'POST', headers: { accept: 'application/x-ndjson' }, body: new URLSearchParams(new FormData(form)), credentials: 'same-origin' })
        .then(function (response) {
          if (!response.ok || !response.body) { form.submit(); return undefined; }
          var reader = response.body.getReader();
          var read = function () {
            return reader.read().then(function (chunk) {
              if (chunk.done) return undefined;
              pending += decoder.decode(chunk.value, { stream: true });
              var lines = pending.split('\n');
              pending = lines.pop();
              lines.forEach(function (line) { if (line) apply(JSON.parse(line)); });
              return read();
            });
          };
          return read();
        })
        .catch(function () { apply({ type: 'error', code: 'network_error', message: 'The request could not be completed. Try again.' }); })
        .then(function () { button.disabled = false; result.setAttribute('data-complete', 'true'); });
    });
  });

  // A form answered with a problem: focus goes to the first field to fix, which reads out its error
  // (aria-describedby); the server put back what was typed (form-state.ts).
  var invalid = document.querySelector('[aria-invalid="true"]');
  if (invalid) invalid.focus();

  // Every page that shows times offers the browser's own zone; the server remembers the choice (time-zone.ts).
  var zone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  var sameZone = function (name) {
    // Aliases are one zone (Asia/Kathmandu is ICU's Asia/Katmandu): compare the names the browser resolves them to.
    try { return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone === zone; } catch (error) { return false; }
  };
  document.querySelectorAll('input[data-browser-zone]').forEach(function (zoneField) {
    if (!zone || sameZone(zoneField.value)) return;
    var use = document.createElement('button');
    use.type = 'button';
    use.className = 'link';
    use.textContent = 'Use my time zone (' + zone + ')';
    use.addEventListener('click', function () {
      zoneField.value = zone;
      zoneField.form.submit();
    });
    zoneField.parentNode.appendChild(use);
  });
})();
