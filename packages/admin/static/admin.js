// The panel's one script (served from /admin/static/, so the page's CSP allows it): the search
// beside a large relation's select narrows that select as you type, from the panel's JSON
// choices (GET <path>/<table>/_choices?q=). Without it the search is a plain GET form that
// reloads the page with the select narrowed, so nothing depends on this file.
'use strict';

/** Waits this long after the last key before asking, so typing a word is one request. */
const PAUSE_MS = 200;

for (const box of document.querySelectorAll('input[data-choices]')) {
  const select = document.getElementById(box.dataset.select);
  const status = document.getElementById(box.dataset.status);
  if (!select || !status || !box.form) continue;
  let timer = 0;
  let pending = null;

  /** The select's options replaced by `choices`, keeping the empty choice and the current one. */
  const fill = (choices) => {
    const chosen = select.value;
    const current = select.selectedOptions[0];
    const keep = chosen !== '' && current && !choices.some((c) => c.value === chosen) ? current : null;
    const empty = select.querySelector('option[value=""]');
    select.replaceChildren(...[empty, keep].filter(Boolean));
    for (const choice of choices) select.append(new Option(choice.label, choice.value));
    select.value = chosen;
  };

  const search = async () => {
    pending?.abort();
    const request = (pending = new AbortController());
    const query = box.value.trim();
    box.setAttribute('aria-busy', 'true');
    try {
      const response = await fetch(`${box.dataset.choices}?${new URLSearchParams({ q: query })}`, { headers: { accept: 'application/json' }, signal: request.signal });
      const body = await response.json().catch(() => null);
      if (request !== pending) return;
      if (!response.ok || !body || !Array.isArray(body.data)) {
        status.textContent = body?.error?.message ?? `The search failed (${response.status}).`;
        return;
      }
      fill(body.data);
      status.textContent = body.meta.message;
      // Tells whoever waits (a test, an assistive tool) which query the select now answers.
      select.dataset.query = query;
    } catch (error) {
      if (error.name !== 'AbortError') status.textContent = 'The search failed; check the connection and try again.';
    } finally {
      if (request === pending) box.removeAttribute('aria-busy');
    }
  };

  box.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, PAUSE_MS);
  });
  // Enter or the Find button: search at once, in place of reloading the page.
  box.form.addEventListener('submit', (event) => {
    event.preventDefault();
    clearTimeout(timer);
    void search();
  });
}
