/** The element of index.html holding the prerendered shell (app/Shell.tsx, vite.config.ts). */
export const SHELL_ID = 'app-shell';

/** The shell index.html was built with, while the app has not replaced it. */
export const prerenderedShell = (): HTMLElement | null =>
  typeof document === 'undefined' ? null : document.getElementById(SHELL_ID);

export function removePrerenderedShell(): void {
  prerenderedShell()?.remove();
}
