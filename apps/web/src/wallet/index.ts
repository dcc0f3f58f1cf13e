// Public face of the wallet feature: the rest of the web app imports only from here.
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
export { WalletChoices } from './WalletChoices';
export { DevnetControls } from './DevnetControls';
export { WalletError, type WalletErrorCode } from './errors';
export { WalletMark } from './WalletMark';
