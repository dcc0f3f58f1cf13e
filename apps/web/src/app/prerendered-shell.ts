/** The element of index.html holding the prerendered shell (app/Shell.tsx, vite.config.ts). */
export const SHELL_ID = 'app-shell';

/** The shell index.html was built with, while the app has not replaced it. */
export const prerenderedShell = (): HTMLElement | null =>
  typeof document === 'undefined' ? null : document.getElementById(SHELL_ID);

const whenGone: Array<() => void> = [];

export function removePrerenderedShell(): void {
  prerenderedShell()?.remove();
  for (const run of whenGone.splice(0)) run();
}

/** Runs `run` once the app has replaced the shell (at once when there is none any more). */
export function afterPrerenderedShell(run: () => void): void {
  if (prerenderedShell()) whenGone.push(run);
  else run();
}
