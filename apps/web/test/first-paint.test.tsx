// First paint: the shell prerendered into index.html (src/app/Shell.tsx) says what the
// welcome page says, works without script, and the app replaces it once it can show the page.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse, delay } from 'msw';
import { renderToStaticMarkup } from 'react-dom/server';
import { SHELL_ID } from '../src/app/prerendered-shell';
import { Shell } from '../src/app/Shell';
import { fakeWallet } from './fake-wallet';
import { config } from './fixtures';
import { withNetworkEdge } from './network-edge';
import { renderApp } from './render-app';
import { server } from './server';

vi.mock('../src/wallet', async () => (await import('./fake-wallet')).walletModule);
vi.mock('../src/wallet/controls', async () => (await import('./fake-wallet')).walletModule);

withNetworkEdge();

const mountShell = () => {
  const shell = document.createElement('div');
  shell.id = SHELL_ID;
  shell.innerHTML = renderToStaticMarkup(<Shell />);
  document.body.append(shell);
  return shell;
};

afterEach(() => document.getElementById(SHELL_ID)?.remove());

describe('the prerendered shell', () => {
  it('has the header, the welcome words and a Create Vault that works without script', () => {
    const html = renderToStaticMarkup(<Shell />);
    const doc = new DOMParser().parseFromString(html, 'text/html');
    expect(doc.querySelector('header .brand')?.textContent).toBe('UUNIT');
    expect([...doc.querySelectorAll('nav a')].map((a) => a.getAttribute('href'))).toEqual([
      '/',
      '/liquidations',
      '/missions',
      '/network',
    ]);
    expect(doc.querySelector('h1')?.textContent).toBe('Borrow UNIT against your Bitcoin');
    const create = [...doc.querySelectorAll('a')].find((a) => a.textContent === 'Create Vault');
    // the app opens the create drawer for this link (SPEC §2 Routes)
    expect(create?.getAttribute('href')).toBe('/?action=create-vault');
  });

  it('stays, with no spinner over it, until the config arrives; then the page replaces it', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.get('*/api/config', async () => {
        await released;
        await delay(10);
        return HttpResponse.json(config);
      }),
    );
    const shell = mountShell();
    fakeWallet.reset();
    renderApp('/');
    expect(screen.queryByText('Loading…')).toBeNull();
    expect(shell.isConnected).toBe(true);
    release();
    expect(await screen.findByRole('button', { name: 'Create Vault' })).toBeInTheDocument();
    await waitFor(() => expect(document.getElementById(SHELL_ID)).toBeNull());
    // the welcome page says the same words the shell painted
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
      'Borrow UNIT against your Bitcoin',
    );
  });

  it('goes when the config fails too, so the error screen is not under a stale shell', async () => {
    server.use(http.get('*/api/config', () => HttpResponse.json({}, { status: 500 })));
    mountShell();
    renderApp('/');
    expect(await screen.findByRole('alert')).toBeInTheDocument();
    expect(document.getElementById(SHELL_ID)).toBeNull();
  });
});
