import type { Network } from '@unit/protocol';
import {
  LEATHER_DOWNLOAD_URL,
  UNISAT_DOWNLOAD_URL,
  XVERSE_DOWNLOAD_URL,
} from './adapters/on-demand';
import { walletMessages } from './errors';
import type { WalletId, WalletInfo } from './types';

export const walletNames: Record<WalletId, string> = {
  xverse: 'Xverse',
  unisat: 'Unisat',
  leather: 'Leather',
  metamask: 'MetaMask',
  devnet: 'Devnet wallet',
};

/**
 * The picker's rows. SPEC §2: Xverse and Unisat are always offered (with a 'Get' link when not
 * installed); Leather and MetaMask only once detected; the devnet wallet only on the devnet.
 */
export function availableWallets(
  network: Network,
  installed: Record<WalletId, boolean>,
): WalletInfo[] {
  const rows: WalletInfo[] = [
    {
      id: 'xverse',
      name: walletNames.xverse,
      installed: installed.xverse,
      supported: true,
      downloadUrl: XVERSE_DOWNLOAD_URL,
      note: null,
    },
    {
      id: 'unisat',
      name: walletNames.unisat,
      installed: installed.unisat,
      supported: true,
      downloadUrl: UNISAT_DOWNLOAD_URL,
      note: null,
    },
  ];
  if (installed.leather)
    rows.push({
      id: 'leather',
      name: walletNames.leather,
      installed: true,
      supported: true,
      downloadUrl: LEATHER_DOWNLOAD_URL,
      note: null,
    });
  if (installed.metamask)
    rows.push({
      id: 'metamask',
      name: walletNames.metamask,
      installed: true,
      supported: false,
      downloadUrl: null,
      note: walletMessages.metamask,
    });
  if (network === 'devnet')
    rows.push({
      id: 'devnet',
      name: walletNames.devnet,
      installed: true,
      supported: true,
      downloadUrl: null,
      note: 'A key kept in this browser, funded by the devnet faucet.',
    });
  return rows;
}
