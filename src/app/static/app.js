// Progressive enhancement only: every page works without this file. It adds copy buttons, focus on the
// first field with an error, a button that fills in the browser's own time zone, the playground's
// streamed answer as the next turn of its chat (without it the form posts and the page comes back with
// the answer), and a "scroll sideways" line above tables wider than the screen.
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
    // The playground page is a chat: each answer becomes a turn above the form, and the conversation the
    // server sends back with the answer goes in the hidden field for the next turn (chat-turns.ts).
    var chat = form.hasAttribute('data-chat-form') ? document.querySelector('[data-chat]') : null;
    var chatSection = chat && chat.closest('[data-chat-section]');
    var carried = form.querySelector('[data-conversation]');
    var message = form.querySelector('textarea[name="message"]');
    var answer = result.querySelector('[data-answer]');
    var problem = result.querySelector('[data-error]');
    var headerRows = result.querySelector('[data-headers]');
    var field = function (name) { return result.querySelector('[data-field="' + name + '"]'); };
    var button = form.querySelector('button[type="submit"]');
    var turn = null;
    var addTurn = function (role, text) {
      var item = document.createElement('li');
      item.className = 'turn ' + role;
      item.appendChild(document.createElement('p')).className = 'turn-who';
      item.firstChild.textContent = role === 'user' ? 'You' : 'Answer';
      var body = item.appendChild(document.createElement('div'));
      body.className = 'turn-text';
      body.textContent = text;
      chat.appendChild(item);
      return item;
    };
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
        field('cost').textContent = event.cost || '';
        if (turn) {
          if (event.model) {
            var who = turn.answer.querySelector('.turn-who');
            who.appendChild(document.createTextNode(' '));
            var model = who.appendChild(document.createElement('span'));
            model.className = 'hint';
            model.textContent = '· ' + event.model;
          }
          var cost = turn.answer.appendChild(document.createElement('p'));
          cost.className = 'turn-cost hint';
          cost.setAttribute('data-turn-cost', '');
          cost.textContent = 'Cost: ' + (event.cost ? '$' + event.cost : 'not reported');
          if (typeof event.conversation === 'string') carried.value = event.conversation;
          var dropped = chatSection.querySelector('[data-dropped]');
          if (dropped && event.dropped) dropped.hidden = false;
          message.value = '';
          var restart = form.querySelector('[data-new-chat]');
          if (restart) restart.hidden = false;
          turn = null;
        }
      } else if (event.type === 'error') {
        problem.hidden = false;
        problem.textContent = event.code + ': ' + event.message;
        // A refused turn is not part of the conversation: it leaves the chat, and the message stays in the box.
        if (turn) {
          chat.removeChild(turn.question);
          chat.removeChild(turn.answer);
          chatSection.hidden = chat.children.length === 0;
          turn = null;
        }
      }
    };
    form.addEventListener('submit', function (submitted) {
      submitted.preventDefault();
      result.hidden = false;
      if (chat) {
        var previous = chat.querySelector('[data-answer]');
        if (previous) previous.removeAttribute('data-answer');
        turn = { question: addTurn('user', message.value.trim()), answer: addTurn('assistant', '') };
        answer = turn.answer.querySelector('.turn-text');
        answer.setAttribute('data-answer', '');
        answer.setAttribute('aria-live', 'polite');
        chatSection.hidden = false;
      }
      answer.textContent = '';
      problem.hidden = true;
      headerRows.textContent = '';
      result.removeAttribute('data-complete');
      ['status', 'x-request-id', 'x-router-upstream', 'tokens', 'cost', 'quota'].forEach(function (name) { field(name).textContent = ''; });
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

  // A table wider than its region: a visible "scroll →" line above it, which the region names for screen
  // readers (aria-describedby), shown only while there is something to scroll to (the edge shadows are CSS).
  var regions = document.querySelectorAll('.table-scroll');
  regions.forEach(function (region, index) {
    var hint = document.createElement('p');
    hint.className = 'hint scroll-hint';
    hint.id = 'scroll-hint-' + index;
    hint.textContent = 'Scroll sideways for more \u2192';
    hint.hidden = true;
    region.parentNode.insertBefore(hint, region);
    var described = region.getAttribute('aria-describedby');
    var update = function () {
      var overflowing = region.scrollWidth > region.clientWidth + 1;
      hint.hidden = !overflowing;
      region.toggleAttribute('data-overflowing', overflowing);
      region.setAttribute('aria-describedby', overflowing ? (described ? described + ' ' : '') + hint.id : (described || ''));
      if (!overflowing && !described) region.removeAttribute('aria-describedby');
    };
    update();
    window.addEventListener('resize', update);
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
