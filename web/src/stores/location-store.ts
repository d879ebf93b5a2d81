/** Where the app is: the path and query, changed by `navigate` and by the browser's back/forward. */
import { createStore } from '@xstate/store';

export const locationStore = createStore({
  context: { path: window.location.pathname, search: window.location.search },
  on: {
    changed: (_, event: { path: string; search: string }) => ({ path: event.path, search: event.search }),
  },
});

window.addEventListener('popstate', () => {
  locationStore.trigger.changed({ path: window.location.pathname, search: window.location.search });
});

/** Goes to `to` (a path with an optional query) without reloading; `replace` keeps history as is. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = new URL(to, window.location.origin);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  locationStore.trigger.changed({ path: url.pathname, search: url.search });
}
