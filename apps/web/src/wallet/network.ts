import { isTestnetAddress, type Network } from '@unit/protocol';
import { WalletError, walletMessages } from './errors';
import type { WalletAccount, WalletNetwork } from './types';

/** How a network is called to the user. */
export const networkLabel: Record<WalletNetwork, string> = {
  devnet: 'Devnet',
  signet: 'Signet',
  mutinynet: 'Mutinynet',
  mainnet: 'Bitcoin mainnet',
  testnet: 'a test network',
  unknown: 'an unknown network',
};

/** What an address says of its network (mainnet or some testnet) by its prefix. */
export function addressNetwork(address: string): 'mainnet' | 'testnet' | 'unknown' {
  const lower = address.toLowerCase();
  if (lower.startsWith('bc1') || /^[13]/.test(address)) return 'mainnet';
  if (lower.startsWith('tb1') || lower.startsWith('bcrt1') || /^[mn2]/.test(address))
    return 'testnet';
  return 'unknown';
}

/** Devnet, signet and mutinynet all use testnet addresses (tb1…). */
export const isTestNetwork = (network: Network) => network !== 'mainnet';

/** A wallet network fits the app's when both are mainnet, or both are test networks. */
export function networkMatches(app: Network, wallet: WalletNetwork): boolean {
  if (wallet === 'unknown') return true;
  if (app === 'mainnet') return wallet === 'mainnet';
  return wallet !== 'mainnet';
}

/**
 * The last gate before an account reaches the rest of the app (and so the server). On a test
 * network the sats address must pass SPEC §5's testnet check (tb1 bech32, 39 to 59 characters).
 * That length range leaves out Taproot (tb1p…, 62 characters), so the runes address, which is
 * Taproot for most wallets, is only required to be a testnet address.
 */
export function assertAccountOnNetwork(account: WalletAccount, app: Network): void {
  if (!isTestNetwork(app)) {
    for (const address of [account.satsAddress, account.runesAddress]) {
      if (addressNetwork(address) !== 'mainnet')
        throw new WalletError(
          'wrong_network',
          walletMessages.wrongNetwork(networkLabel.testnet, networkLabel.mainnet),
        );
    }
    return;
  }
  for (const address of [account.satsAddress, account.runesAddress]) {
    const seen = addressNetwork(address);
    if (seen !== 'testnet')
      throw new WalletError(
        'wrong_network',
        walletMessages.wrongNetwork(networkLabel[seen], networkLabel[app]),
      );
  }
  if (!isTestnetAddress(account.satsAddress))
    throw new WalletError('unsupported', walletMessages.segwitPaymentNeeded);
}
