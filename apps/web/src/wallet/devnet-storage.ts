// Where the devnet wallet keeps its state in this browser. No crypto here: the adapter imports this
// eagerly, and the key material's curve code loads only when the devnet wallet is used.
export const DEVNET_KEY_STORAGE = 'unit.wallet.devnet-key';
export const DEVNET_FUNDED_STORAGE = 'unit.wallet.devnet-funded';
