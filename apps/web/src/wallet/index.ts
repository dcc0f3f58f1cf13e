// Public face of the wallet feature: what every page needs from the first render (the provider,
// its hook, its errors). The wallet's own screens are in ./controls, imported by the parts that
// load on demand (the wallet menu, the connect step), so their code is not in the page's first
// download.
export type {
  WalletId,
  WalletAccount,
  WalletInfo,
  WalletStatus,
  WalletContextValue,
  SignPsbtOptions,
  WrongNetwork,
} from './types';
export { WalletProvider, useWallet } from './WalletProvider';
export { WalletPicker } from './LazyWalletPicker';
export { WalletError, type WalletErrorCode } from './errors';
