// Node side of the injected wallets: bundles browser.ts into a script Playwright runs before the
// page's own (page.addInitScript), and tells the test which addresses that wallet will show.
import { build } from 'esbuild';
import type { Page } from '@playwright/test';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hex } from '@scure/base';
import { resolve } from 'node:path';
import type { InjectedWalletOptions } from './browser';
import {
  injectedWalletAddresses,
  type InjectedWalletAddresses,
  type InjectedWalletKind,
} from './keys';

export { injectedWalletAddresses, type InjectedWalletAddresses, type InjectedWalletKind };

/** The bundle's global: `installInjectedWallet` of browser.ts. */
const GLOBAL_NAME = '__unitInjectedWallet';

/** How the injected extension behaves beyond its key: its starting chain, a declined request. */
export type InjectedWalletBehaviour = Omit<InjectedWalletOptions, 'kind' | 'privateKeyHex'>;

let bundled: Promise<string> | null = null;

/** browser.ts and its crypto as one IIFE, built once per test worker. */
function walletBundle(): Promise<string> {
  bundled ??= build({
    entryPoints: [resolve(import.meta.dirname, 'browser.ts')],
    bundle: true,
    format: 'iife',
    globalName: GLOBAL_NAME,
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}

/**
 * A script for `page.addInitScript({ content })` that installs the wallet (window.unisat,
 * window.XverseProviders.BitcoinProvider for sats-connect, or window.LeatherProvider) signing with
 * this secret key.
 */
export async function bundleWalletInit(
  kind: InjectedWalletKind,
  privateKeyHex: string,
  behaviour: InjectedWalletBehaviour = {},
): Promise<string> {
  const options: InjectedWalletOptions = { kind, privateKeyHex, ...behaviour };
  return `${await walletBundle()}\n${GLOBAL_NAME}.installInjectedWallet(${JSON.stringify(options)});\n`;
}

/** A fresh secret key (hex) for one journey's wallet. */
export const randomWalletKey = (): string => hex.encode(secp256k1.utils.randomSecretKey());

/**
 * Installs the wallet in every document the page loads from now on and returns its addresses,
 * so the test can fund the sats address before the app first looks at the balance.
 */
export async function injectWallet(
  page: Page,
  kind: InjectedWalletKind,
  privateKeyHex: string = randomWalletKey(),
  behaviour: InjectedWalletBehaviour = {},
): Promise<InjectedWalletAddresses> {
  await page.addInitScript({ content: await bundleWalletInit(kind, privateKeyHex, behaviour) });
  return injectedWalletAddresses(kind, privateKeyHex);
}
