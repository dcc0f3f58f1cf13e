import type { Network } from '@unit/protocol';

export type WalletId = 'xverse' | 'unisat' | 'leather' | 'metamask' | 'devnet';

/** SPEC §3 Wallet: the account a vault is opened with. */
export interface WalletAccount {
  /** where BTC for deposits comes from (P2WPKH or P2TR, depending on the wallet) */
  satsAddress: string;
  /** hex public key of satsAddress (33-byte compressed, or 32-byte x-only for P2TR) */
  satsPublicKey: string;
  /** 32-byte x-only hex key that goes into the vault's update leaf */
  vaultPubkey: string;
  /** where UNIT runes are sent, and spent from on repay (P2TR; Unisat's one address may be P2WPKH) */
  runesAddress: string;
  /**
   * hex public key of runesAddress: 32-byte x-only when it is P2TR (the tapInternalKey of its
   * inputs), 33-byte compressed for P2WPKH. Xverse and Leather keep runes on their Taproot
   * (ordinals) account, whose key differs from the payment key; Unisat and the devnet wallet
   * reuse the payment key.
   */
  runesPublicKey: string;
}

/** One row of the wallet picker. */
export interface WalletInfo {
  id: WalletId;
  name: string;
  /** the extension (or the local devnet key) is present in this browser */
  installed: boolean;
  /** it can open a vault here (MetaMask is detected but cannot) */
  supported: boolean;
  /** where to get it when not installed */
  downloadUrl: string | null;
  /** a line shown under the name, e.g. why it cannot be used */
  note: string | null;
}

export type WalletStatus = 'disconnected' | 'connecting' | 'connected';

export interface SignPsbtOptions {
  /** indices of the inputs this wallet must sign; every other input is left untouched */
  signInputs: number[];
}

export interface WalletContextValue {
  status: WalletStatus;
  /** a remembered wallet is being reconnected silently after a reload: not yet known either way */
  restoring: boolean;
  walletId: WalletId | null;
  account: WalletAccount | null;
  error: string | null;
  available: WalletInfo[];
  network: Network | null;
  connect(id: WalletId): Promise<void>;
  disconnect(): void;
  signPsbt(psbtBase64: string, opts: SignPsbtOptions): Promise<string>;
  signMessage(message: string): Promise<string>;
  /** devnet only: asks the devnet faucet for 1 BTC to the sats address */
  fund?(): Promise<void>;
  /** set when the wallet is on another network than the app; null otherwise */
  wrongNetwork: WrongNetwork | null;
  /** asks the wallet to switch to the app's network, where the wallet supports it */
  switchNetwork?(): Promise<void>;
}

export interface WrongNetwork {
  message: string;
  canSwitch: boolean;
}

/** What the provider knows of the wallet's network: a concrete one or "some testnet". */
export type WalletNetwork = Network | 'testnet' | 'unknown';

export interface WalletEvents {
  onAccountsChanged?(): void;
  onNetworkChanged?(): void;
}

/**
 * The one interface every wallet is driven through. Adapters throw WalletError for anything the
 * user should read; the provider turns that into `error` (or silently resets on rejection).
 */
export interface WalletAdapter {
  readonly id: WalletId;
  /** true when the browser has this wallet (extension injected, or devnet key possible) */
  isInstalled(): boolean;
  /** opens the wallet's approval prompt (silent: reuse an existing permission, no prompt) */
  connect(opts?: { silent?: boolean }): Promise<WalletAccount>;
  disconnect(): Promise<void>;
  /** the currently granted account, or null when no permission is held */
  accounts(): Promise<WalletAccount | null>;
  network(): Promise<WalletNetwork>;
  switchNetwork?(target: Network): Promise<void>;
  /** confirmed + unconfirmed sats, when the wallet reports it itself */
  balance?(): Promise<bigint>;
  signPsbt(psbtBase64: string, opts: SignPsbtOptions): Promise<string>;
  signMessage(message: string): Promise<string>;
  /** can connect() with { silent: true } restore a granted permission without a prompt */
  readonly reconnectsSilently: boolean;
  /** subscribes to account/network changes; returns the unsubscribe function */
  subscribe(events: WalletEvents): () => void;
}
