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
import { addressesOf, btcNetworkOf, userKeys, type TestWalletKeys } from './keys';

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
  /** whether the app listens for `event` yet (it subscribes once sats-connect has loaded) */
  listens(event: 'accountChange' | 'networkChange'): boolean;
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
    listens: (event) => (listeners.get(event)?.size ?? 0) > 0,
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
  /** the next request fails as the user closing Leather's popup */
  rejectNext: boolean;
  calls: Array<{ method: string; params: unknown }>;
  uninstall(): void;
}

/** Leather's RPC error codes (JSON-RPC's, and 4001 for a popup the user closed). */
const LEATHER_USER_REJECTION = 4001;
const LEATHER_INVALID_PARAMS = -32602;
const LEATHER_METHOD_NOT_FOUND = -32601;

/** Leather signs with every sighash type a PSBT input may ask for. */
const ANY_SIGHASH = Object.values(btc.SigHash);

/**
 * window.LeatherProvider as Leather's in-page script has it: `request(method, params)` posts a
 * JSON-RPC 2.0 request and resolves with the whole response `{ jsonrpc, id, result }`, or rejects
 * with the whole error response `{ jsonrpc, id, error: { code, message } }`. Every request opens
 * Leather's popup (getAddresses too), so a page has no silent way back to the accounts.
 */
export function installFakeLeather(
  opts: { keys?: TestWalletKeys; network?: 'mainnet' | 'testnet' } = {},
): FakeLeather {
  const keys = opts.keys ?? userKeys;
  assertTwoAccounts(keys);
  const walletNetwork = opts.network ?? 'testnet';
  const net = btcNetworkOf(walletNetwork);
  const own = addressesOf(keys, walletNetwork);
  const taprootCompressed = secp256k1.getPublicKey(keys.taprootKey, true);
  const taprootXOnly = taprootCompressed.subarray(1);
  // BIP-84 and BIP-86 paths of account 0; coin type 1 on the test networks.
  const coin = walletNetwork === 'mainnet' ? 0 : 1;
  const state: FakeLeather = {
    rejectNext: false,
    calls: [],
    uninstall: () => {
      delete window.LeatherProvider;
    },
  };
  let nextId = 0;

  const answer = (method: string, params: Record<string, unknown>): unknown => {
    switch (method) {
      case 'getAddresses':
        return {
          addresses: [
            {
              symbol: 'BTC',
              type: 'p2wpkh',
              address: own.payment.address,
              publicKey: own.payment.publicKey,
              derivationPath: `m/84'/${coin}'/0'/0/0`,
            },
            {
              // Leather hands the Taproot key out compressed (33 bytes), and x-only beside it.
              symbol: 'BTC',
              type: 'p2tr',
              address: own.taproot.address,
              publicKey: hex.encode(taprootCompressed),
              tweakedPublicKey: hex.encode(taprootXOnly),
              derivationPath: `m/86'/${coin}'/0'/0/0`,
            },
            { symbol: 'STX', address: 'ST000000000000000000002AMW42H' },
          ],
        };
      case 'signPsbt': {
        const { hex: psbtHex, signAtIndex, broadcast } = params;
        if (typeof psbtHex !== 'string') throw leatherError(LEATHER_INVALID_PARAMS, 'hex');
        // The fake never broadcasts: a vault transaction needs the guardian's signature first.
        if (broadcast) throw leatherError(LEATHER_INVALID_PARAMS, 'fake Leather: no broadcast');
        let tx: btc.Transaction;
        try {
          tx = btc.Transaction.fromPSBT(hex.decode(psbtHex));
        } catch {
          throw leatherError(LEATHER_INVALID_PARAMS, 'Invalid PSBT hex');
        }
        const indices =
          signAtIndex === undefined
            ? Array.from({ length: tx.inputsLength }, (_, index) => index)
            : ([] as unknown[]).concat(signAtIndex);
        for (const index of indices) {
          if (typeof index !== 'number' || index < 0 || index >= tx.inputsLength)
            throw leatherError(LEATHER_INVALID_PARAMS, 'signAtIndex');
          const input = tx.getInput(index);
          // Leather adds its own Taproot key to a key-path P2TR input that names none.
          const isTaproot = input.witnessUtxo?.script[0] === 0x51;
          if (isTaproot && !input.tapInternalKey && !input.tapLeafScript)
            tx.updateInput(index, { tapInternalKey: taprootXOnly });
          // As Leather does: its native SegWit key first, then its Taproot key; an input neither
          // can sign is left as it came.
          try {
            tx.signIdx(keys.paymentKey, index, ANY_SIGHASH);
          } catch {
            try {
              tx.signIdx(keys.taprootKey, index, ANY_SIGHASH);
            } catch {
              // not this wallet's input
            }
          }
        }
        return { hex: hex.encode(tx.toPSBT()) };
      }
      case 'signMessage': {
        // BIP-322 "simple" with the account paymentType names (native SegWit when none).
        const { message, paymentType = 'p2wpkh' } = params;
        if (typeof message !== 'string') throw leatherError(LEATHER_INVALID_PARAMS, 'message');
        if (paymentType === 'p2wpkh')
          return {
            signature: bip322Wpkh(message, keys.paymentKey, net),
            address: own.payment.address,
            message,
          };
        if (paymentType === 'p2tr')
          return {
            signature: signBip322Simple({
              message,
              script: btc.p2tr(taprootXOnly, undefined, net).script,
              secretKey: keys.taprootKey,
              internalKey: taprootXOnly,
            }),
            address: own.taproot.address,
            message,
          };
        throw leatherError(LEATHER_INVALID_PARAMS, 'Unsupported payment type');
      }
      default:
        throw leatherError(LEATHER_METHOD_NOT_FOUND, `Method ${method} not found`);
    }
  };

  /** What a failed request rejects with: the error response, numbered by the caller below. */
  function leatherError(code: number, message: string) {
    return { error: { code, message } };
  }

  const request = async (method: string, params?: Record<string, unknown>) => {
    const id = `leather-${++nextId}`;
    state.calls.push({ method, params });
    try {
      if (state.rejectNext) {
        state.rejectNext = false;
        throw leatherError(LEATHER_USER_REJECTION, 'User rejected request');
      }
      return { jsonrpc: '2.0', id, result: answer(method, params ?? {}) };
    } catch (failure) {
      const error = (failure as { error?: { code: number; message: string } }).error ?? {
        code: -32603,
        message: String(failure),
      };
      throw { jsonrpc: '2.0', id, error };
    }
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
