// The project web-app (vitest.app.config.ts) runs its files in one window with one import of the
// app's modules per worker. Before each file, this puts back what a fresh window would give it:
// the globals a file stubbed put back, an empty document with no attributes (a dialog's scroll
// lock or inert marks), empty storage, the fake wallet disconnected, the page's first data and the
// chart's measured size forgotten, the fixtures' times read from the clock again.
import { vi } from 'vitest';
import { resetFirstData } from '../src/api/first-data';
import { forgetSize } from '../src/chart/geometry';
import { fakeWallet } from './fake-wallet';
import { freshClock } from './fixtures';

vi.unstubAllGlobals();
for (const element of [document.documentElement, document.body]) {
  for (const name of element.getAttributeNames()) element.removeAttribute(name);
}
document.head.replaceChildren();
document.body.replaceChildren();
localStorage.clear();
sessionStorage.clear();
fakeWallet.reset();
resetFirstData();
forgetSize();
freshClock();
