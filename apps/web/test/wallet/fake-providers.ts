// Injected wallet providers with each wallet's real API shape, signing with real test keys through
// @scure/btc-signer. Unit tests install them on `window`; the browser journeys inject the same code
// before the app loads (e2e/support/wallets/ bundles it), so keep it free of test-runner imports.
import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import * as btc from '@scure/btc-signer';
import { signBip322Simple } from '@unit/bitcoin';
// The adapters' descriptions of each wallet's API (they also declare window.unisat and
// window.LeatherProvider, which keeps this file type-checked wherever it is bundled from).
import type { LeatherApi } from '../../src/wallet/adapters/leather';
import type { UnisatApi } from '../../src/wallet/adapters/unisat';
import { addressesOf, userKeys, type TestWalletKeys } from './keys';

type Listener = () => void;

/**
 * Xverse and Leather derive the payment and the Taproot (ordinals) account on different paths, so
 * the two keys always differ; a fake with one key for both would hide a mixed-up key.
 */
function assertTwoAccounts(keys: TestWalletKeys): void {
  if (hex.encode(keys.paymentKey) === hex.encode(keys.taprootKey))
    throw new Error('fake wallet: the payment and Taproot accounts need different keys');
}

/** What a wallet's BIP-322 "simple" signing of a P2WPKH address produces. */
const bip322Wpkh = (message: string, key: Uint8Array, network: typeof btc.NETWORK) =>
  signBip322Simple({
    message,
    script: btc.p2wpkh(secp256k1.getPublicKey(key, true), network).script,
    secretKey: key,
  });

/** A stand-in for a legacy ECDSA message signature: the server must refuse it as BIP-322. */
const legacySignature = (message: string, key: Uint8Array) =>
  base64.encode(schnorr.sign(new TextEncoder().encode(message), key));

const signIndices = (psbt: Uint8Array, jobs: Array<{ index: number; key: Uint8Array }>) => {
  const tx = btc.Transaction.fromPSBT(psbt, { allowUnknownOutputs: true });
  for (const { index, key } of jobs) {
    if (!tx.signIdx(key, index)) throw new Error(`fake wallet: nothing signed at input ${index}`);
  }
  return tx.toPSBT();
};

// ------------------------------------------------------------------------------------ Xverse

export interface FakeXverse {
  /** the next request fails as the user pressing "Cancel" */
  rejectNext: boolean;
  network: 'Mainnet' | 'Testnet' | 'Signet';
  connected: boolean;
  calls: Array<{ method: string; params: unknown }>;
  emit(event: 'accountChange' | 'networkChange'): void;
  uninstall(): void;
}

/** window.XverseProviders.BitcoinProvider: JSON-RPC 2.0 `request(method, params)`, as sats-connect calls it. */
export function installFakeXverse(
  opts: { keys?: TestWalletKeys; network?: FakeXverse['network'] } = {},
): FakeXverse {
  const keys = opts.keys ?? userKeys;
  assertTwoAccounts(keys);
  const listeners = new Map<string, Set<Listener>>();
  const state: FakeXverse = {
    rejectNext: false,
    network: opts.network ?? 'Signet',
    connected: false,
    calls: [],
    emit: (event) => listeners.get(event)?.forEach((cb) => cb()),
    uninstall: () => {
      delete (window as { XverseProviders?: unknown }).XverseProviders;
    },
  };
  const addresses = () => {
    const own = addressesOf(keys, state.network === 'Mainnet' ? 'mainnet' : 'testnet');
    // The ordinals key comes x-only, as Xverse reports Taproot keys.
    return [
      { ...own.payment, purpose: 'payment', addressType: 'p2wpkh', walletType: 'software' },
      { ...own.taproot, purpose: 'ordinals', addressType: 'p2tr', walletType: 'software' },
    ];
  };
  const ok = (result: unknown) => ({ jsonrpc: '2.0', id: '1', result });
  const fail = (code: number, message: string) => ({
    jsonrpc: '2.0',
    id: '1',
    error: { code, message },
  });
  const networkResult = () => ({
    bitcoin: { name: state.network },
    stacks: { name: 'testnet' },
    spark: { name: 'regtest' },
  });

  const provider = {
    async request(method: string, params: unknown) {
      state.calls.push({ method, params });
      if (method === 'getInfo') return ok({ version: '1.10.0', platform: 'web', methods: [] });
      if (state.rejectNext) {
        state.rejectNext = false;
        return fail(-32000, 'User rejected the request');
      }
      switch (method) {
        case 'wallet_connect':
          state.connected = true;
          return ok({
            id: 'acc',
            addresses: addresses(),
            walletType: 'software',
            network: networkResult(),
          });
        case 'wallet_getAccount':
          if (!state.connected) return fail(-32002, 'Access denied');
          return ok({
            id: 'acc',
            addresses: addresses(),
            walletType: 'software',
            network: networkResult(),
          });
        case 'wallet_getNetwork':
          return ok(networkResult());
        case 'wallet_changeNetwork':
          state.network = (params as { name: FakeXverse['network'] }).name;
          return ok(null);
        case 'wallet_disconnect':
          state.connected = false;
          return ok(null);
        case 'getBalance':
          return ok({ confirmed: '150000', unconfirmed: '0', total: '150000' });
        case 'signPsbt': {
          const { psbt, signInputs } = params as {
            psbt: string;
            signInputs: Record<string, number[]>;
          };
          const own = addressesOf(keys, state.network === 'Mainnet' ? 'mainnet' : 'testnet');
          const jobs = Object.entries(signInputs).flatMap(([address, indices]) => {
            const key =
              address === own.payment.address
                ? keys.paymentKey
                : address === own.taproot.address
                  ? keys.taprootKey
                  : null;
            if (!key) throw new Error(`fake Xverse: ${address} is not this wallet's`);
            return indices.map((index) => ({ index, key }));
          });
          return ok({ psbt: base64.encode(signIndices(base64.decode(psbt), jobs)) });
        }
        case 'signMessage': {
          // Xverse signs a payment address with ECDSA unless BIP322 is asked for.
          const { message, address, protocol } = params as {
            message: string;
            address: string;
            protocol?: string;
          };
          const net = state.network === 'Mainnet' ? btc.NETWORK : btc.TEST_NETWORK;
          const own = addressesOf(keys, state.network === 'Mainnet' ? 'mainnet' : 'testnet');
          if (address !== own.payment.address)
            return fail(-32602, `fake Xverse: ${address} is not the payment address`);
          return ok({
            signature:
              protocol === 'BIP322'
                ? bip322Wpkh(message, keys.paymentKey, net)
                : legacySignature(message, keys.paymentKey),
            messageHash: '',
            address,
            protocol: protocol ?? 'ECDSA',
          });
        }
        default:
          return fail(-32601, `Method ${method} not found`);
      }
    },
    addListener({ eventName, cb }: { eventName: string; cb: Listener }) {
      if (!listeners.has(eventName)) listeners.set(eventName, new Set());
      listeners.get(eventName)!.add(cb);
      return () => listeners.get(eventName)?.delete(cb);
    },
  };
  (window as { XverseProviders?: unknown }).XverseProviders = { BitcoinProvider: provider };
  return state;
}

// ------------------------------------------------------------------------------------ Unisat

export interface FakeUnisat {
  rejectNext: boolean;
  chain: 'BITCOIN_MAINNET' | 'BITCOIN_TESTNET' | 'BITCOIN_SIGNET';
  granted: boolean;
  lastSignOptions: unknown;
  emit(event: 'accountsChanged' | 'networkChanged'): void;
  uninstall(): void;
}

/**
 * window.unisat with one account, Native SegWit by default or Taproot: Unisat shows one address, so
 * the same key pays the sats, receives the runes and is the vault key.
 */
export function installFakeUnisat(
  opts: { key?: Uint8Array; chain?: FakeUnisat['chain']; addressType?: 'p2wpkh' | 'p2tr' } = {},
): FakeUnisat {
  const key = opts.key ?? userKeys.paymentKey;
  const compressed = secp256k1.getPublicKey(key, true);
  const listeners = new Map<string, Set<Listener>>();
  const state: FakeUnisat = {
    rejectNext: false,
    chain: opts.chain ?? 'BITCOIN_SIGNET',
    granted: false,
    lastSignOptions: null,
    emit: (event) => listeners.get(event)?.forEach((cb) => cb()),
    uninstall: () => {
      delete window.unisat;
    },
  };
  const address = () => {
    const net = state.chain === 'BITCOIN_MAINNET' ? btc.NETWORK : btc.TEST_NETWORK;
    return opts.addressType === 'p2tr'
      ? btc.p2tr(compressed.subarray(1), undefined, net).address!
      : btc.p2wpkh(compressed, net).address!;
  };
  const maybeReject = () => {
    if (state.rejectNext) {
      state.rejectNext = false;
      throw { code: 4001, message: 'User rejected the request.' };
    }
  };
  const unisat: UnisatApi = {
    async requestAccounts() {
      maybeReject();
      state.granted = true;
      return [address()];
    },
    async getAccounts() {
      return state.granted ? [address()] : [];
    },
    async getPublicKey() {
      return hex.encode(compressed);
    },
    async getBalance() {
      return { confirmed: 90_000, unconfirmed: 10_000, total: 100_000 };
    },
    async getChain() {
      return {
        enum: state.chain,
        name: state.chain,
        network: state.chain === 'BITCOIN_MAINNET' ? 'livenet' : 'testnet',
      };
    },
    async switchChain(chain: string) {
      maybeReject();
      state.chain = chain as FakeUnisat['chain'];
      return { enum: chain };
    },
    async signPsbt(psbtHex, options) {
      maybeReject();
      state.lastSignOptions = options;
      const own = hex.encode(compressed);
      const jobs = options.toSignInputs.map(({ index, publicKey }) => {
        if (publicKey !== own) throw new Error('fake Unisat: asked to sign with a foreign key');
        return { index, key };
      });
      const signed = signIndices(hex.decode(psbtHex), jobs);
      if (options.autoFinalized) throw new Error('fake Unisat: vault PSBTs must not be finalized');
      return hex.encode(signed);
    },
    async signMessage(message, type) {
      maybeReject();
      if (type !== 'bip322-simple') return legacySignature(message, key);
      const net = state.chain === 'BITCOIN_MAINNET' ? btc.NETWORK : btc.TEST_NETWORK;
      return opts.addressType === 'p2tr'
        ? signBip322Simple({
            message,
            script: btc.p2tr(compressed.subarray(1), undefined, net).script,
            secretKey: key,
            internalKey: compressed.subarray(1),
          })
        : bip322Wpkh(message, key, net);
    },
    on(event, handler) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(handler);
    },
    removeListener(event, handler) {
      listeners.get(event)?.delete(handler);
    },
  };
  window.unisat = unisat;
  return state;
}

// ------------------------------------------------------------------------------------ Leather

export interface FakeLeather {
  rejectNext: boolean;
  uninstall(): void;
}

/** window.LeatherProvider: `request(method, params)` resolving `{ result }`, rejecting `{ error }`. */
export function installFakeLeather(
  opts: { keys?: TestWalletKeys; network?: 'mainnet' | 'testnet' } = {},
): FakeLeather {
  const keys = opts.keys ?? userKeys;
  assertTwoAccounts(keys);
  const own = addressesOf(keys, opts.network ?? 'testnet');
  const state: FakeLeather = {
    rejectNext: false,
    uninstall: () => {
      delete window.LeatherProvider;
    },
  };
  const request = async (method: string, params?: Record<string, unknown>): Promise<never> => {
    if (state.rejectNext) {
      state.rejectNext = false;
      throw { jsonrpc: '2.0', id: '1', error: { code: 4001, message: 'User rejected request' } };
    }
    const reply = (result: unknown) => ({ jsonrpc: '2.0', id: '1', result }) as never;
    if (method === 'getAddresses')
      return reply({
        addresses: [
          { symbol: 'BTC', type: 'p2wpkh', ...own.payment },
          // Leather reports the Taproot key compressed (33 bytes)
          {
            symbol: 'BTC',
            type: 'p2tr',
            address: own.taproot.address,
            publicKey: hex.encode(secp256k1.getPublicKey(keys.taprootKey, true)),
          },
          { symbol: 'STX', address: 'ST000000000000000000002AMW42H' },
        ],
      });
    if (method === 'signPsbt') {
      const { hex: psbtHex, signAtIndex } = params as { hex: string; signAtIndex: number[] };
      const tx = btc.Transaction.fromPSBT(hex.decode(psbtHex), { allowUnknownOutputs: true });
      for (const index of signAtIndex) {
        let signed = false;
        for (const key of [keys.paymentKey, keys.taprootKey]) {
          try {
            signed = tx.signIdx(key, index) || signed;
          } catch {
            // not this key's input
          }
        }
        if (!signed)
          throw { jsonrpc: '2.0', id: '1', error: { code: -32603, message: 'Cannot sign input' } };
      }
      return reply({ hex: hex.encode(tx.toPSBT()) });
    }
    if (method === 'signMessage') {
      // Leather signs BIP-322 with the account its paymentType names.
      const { message, paymentType } = params as { message: string; paymentType?: string };
      if (paymentType !== 'p2wpkh')
        throw {
          jsonrpc: '2.0',
          id: '1',
          error: { code: -32602, message: 'fake Leather: p2wpkh only' },
        };
      return reply({
        signature: bip322Wpkh(
          message,
          keys.paymentKey,
          opts.network === 'mainnet' ? btc.NETWORK : btc.TEST_NETWORK,
        ),
        address: own.payment.address,
      });
    }
    throw { jsonrpc: '2.0', id: '1', error: { code: -32601, message: 'Method not found' } };
  };
  window.LeatherProvider = { request } as unknown as LeatherApi;
  return state;
}

// ------------------------------------------------------------------------------------ MetaMask

/** Answers EIP-6963 discovery the way MetaMask does; returns the function that stops it. */
export function announceMetaMask(): () => void {
  const announce = () =>
    window.dispatchEvent(
      new CustomEvent('eip6963:announceProvider', {
        detail: Object.freeze({
          info: { uuid: 'mm-test', name: 'MetaMask', icon: 'data:,', rdns: 'io.metamask' },
          provider: {},
        }),
      }),
    );
  window.addEventListener('eip6963:requestProvider', announce);
  announce();
  return () => window.removeEventListener('eip6963:requestProvider', announce);
}
