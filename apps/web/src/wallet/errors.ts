// Every wallet failure the user may read is a WalletError with a code; the provider decides how to
// show it. A rejection is the user saying "no" in the wallet: it resets the state, it is no error.
export type WalletErrorCode =
  'rejected' | 'not_installed' | 'wrong_network' | 'unsupported' | 'no_accounts' | 'failed';

export class WalletError extends Error {
  constructor(
    readonly code: WalletErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}

export const isRejection = (error: unknown): boolean =>
  error instanceof WalletError && error.code === 'rejected';

export const walletMessages = {
  rejected: 'Request cancelled in the wallet.',
  notInstalled: (name: string) => `${name} is not installed in this browser.`,
  // SPEC §8 "no accounts": the caller offers a retry.
  noAccounts: 'The wallet did not share any account. Unlock it and try again.',
  metamask:
    'MetaMask cannot hold Bitcoin vaults here. Use Xverse, Unisat or Leather to open a vault.',
  wrongNetwork: (walletNetwork: string, appNetwork: string) =>
    `Your wallet is on ${walletNetwork}, but this app runs on ${appNetwork}. Switch the wallet to ${appNetwork} to continue.`,
  wrongNetworkNoSwitch: (appNetwork: string) =>
    `Switch your wallet to ${appNetwork} in its settings, then connect again.`,
  noSigner: 'The wallet could not sign the requested inputs.',
  segwitPaymentNeeded:
    'This app needs a native SegWit (tb1q…) payment address on test networks. Switch the wallet account to Native SegWit and connect again.',
  taprootNeeded: 'This wallet account has no Taproot (runes) address to receive UNIT.',
} as const;

/** Turns anything a wallet threw into a WalletError, keeping an already typed one. */
export function toWalletError(
  error: unknown,
  fallback = 'The wallet request failed.',
): WalletError {
  if (error instanceof WalletError) return error;
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'object' && error !== null && 'message' in error
        ? String((error as { message: unknown }).message)
        : fallback;
  return new WalletError('failed', message || fallback);
}
