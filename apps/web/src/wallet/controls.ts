// The wallet's own screens, for the parts of the app that load on demand (wallet/index.ts).
export { WalletChoices } from './WalletChoices';
export { DevnetControls } from './DevnetControls';
export { WalletMark } from './WalletMark';
