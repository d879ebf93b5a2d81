/**
 * The person's own settings in this browser (localStorage): whether single-key shortcuts are on
 * (WCAG 2.1.4: a person using speech input or a screen reader can turn them off).
 */
import { createStore } from '@xstate/store';

const SHORTCUTS_KEY = 'r3.shortcuts';

function stored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export const preferencesStore = createStore({
  context: { shortcuts: stored(SHORTCUTS_KEY) !== 'off' },
  on: {
    shortcutsSet: (context, event: { on: boolean }) => ({ ...context, shortcuts: event.on }),
  },
});

preferencesStore.subscribe(({ context }) => {
  try {
    window.localStorage.setItem(SHORTCUTS_KEY, context.shortcuts ? 'on' : 'off');
  } catch {
    // Storage refused (private mode): the setting holds for this page only.
  }
});
