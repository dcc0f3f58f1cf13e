// PSBT work done in the browser. @scure/btc-signer is imported lazily so it stays out of the
// initial bundle: it is only needed once a wallet is asked to sign.
import { base64, hex } from '@scure/base';
import { WalletError, walletMessages } from './errors';
import type { WalletAccount } from './types';

const loadSigner = () => import('@scure/btc-signer');

// Vault PSBTs carry runestone and state-record outputs btc-signer does not know as templates.
const PSBT_OPTIONS = { allowUnknownOutputs: true, allowUnknownInputs: true } as const;

export const psbtBase64ToHex = (psbt: string) => hex.encode(base64.decode(psbt));
export const psbtHexToBase64 = (psbt: string) => base64.encode(hex.decode(psbt));

/** Which of the account's keys an input needs: the sats address's, the runes address's, the vault's. */
export type InputOwner = 'payment' | 'runes' | 'vault';

/**
 * Tells, for each requested input, which key of the account signs it: a vault input (spent through
 * the update leaf) needs the vault key; a UNIT input pays the runes address and needs its key
 * (Xverse's and Leather's ordinals key); the rest are payment inputs. Where the runes address is
 * the sats address (Unisat) the one key signs either way.
 */
export async function inputOwners(
  psbtBase64: string,
  signInputs: number[],
  account: WalletAccount,
): Promise<Map<number, InputOwner>> {
  const btc = await loadSigner();
  const tx = btc.Transaction.fromPSBT(base64.decode(psbtBase64), PSBT_OPTIONS);
  const owners = new Map<number, InputOwner>();
  const vaultKey = account.vaultPubkey.toLowerCase();
  for (const index of signInputs) {
    if (index < 0 || index >= tx.inputsLength)
      throw new WalletError('failed', `The transaction has no input ${index} to sign.`);
    const input = tx.getInput(index);
    const leafHasVaultKey = (input.tapLeafScript ?? []).some(([, script]) =>
      containsPush(hex.encode(script), vaultKey),
    );
    if (leafHasVaultKey) {
      owners.set(index, 'vault');
      continue;
    }
    const script = input.witnessUtxo?.script;
    const paysTo = script ? safeAddress(btc, script, account.satsAddress) : null;
    const isRunes = paysTo === account.runesAddress && paysTo !== account.satsAddress;
    owners.set(index, isRunes ? 'runes' : 'payment');
  }
  return owners;
}

/** True when the script (hex) pushes the 32-byte key, matched on byte boundaries only. */
function containsPush(scriptHex: string, keyHex: string): boolean {
  const needle = `20${keyHex}`;
  for (let at = scriptHex.indexOf(needle); at !== -1; at = scriptHex.indexOf(needle, at + 1))
    if (at % 2 === 0) return true;
  return false;
}

function safeAddress(
  btc: typeof import('@scure/btc-signer'),
  script: Uint8Array,
  hintAddress: string,
): string | null {
  const network = /^(tb1|bcrt1|[mn2])/i.test(hintAddress) ? btc.TEST_NETWORK : btc.NETWORK;
  try {
    return btc.Address(network).encode(btc.OutScript.decode(script));
  } catch {
    return null;
  }
}

/**
 * Throws unless the wallet added a signature (ECDSA, Taproot key path or script path) to every
 * requested input: for wallets that skip what they cannot sign without an error. Counted against
 * the PSBT sent, since a vault input may already carry the guardian's signature.
 */
export async function assertInputsSigned(
  sentBase64: string,
  signedBase64: string,
  signInputs: number[],
): Promise<void> {
  const btc = await loadSigner();
  const sent = btc.Transaction.fromPSBT(base64.decode(sentBase64), PSBT_OPTIONS);
  const signed = btc.Transaction.fromPSBT(base64.decode(signedBase64), PSBT_OPTIONS);
  const signatures = (tx: typeof sent, index: number) => {
    const input = tx.getInput(index);
    return (
      (input.partialSig?.length ?? 0) +
      (input.tapKeySig ? 1 : 0) +
      (input.tapScriptSig?.length ?? 0)
    );
  };
  for (const index of signInputs) {
    if (index < 0 || index >= signed.inputsLength)
      throw new WalletError('failed', `The transaction has no input ${index} to sign.`);
    if (signatures(signed, index) <= signatures(sent, index))
      throw new WalletError('failed', walletMessages.noSigner);
  }
}

/**
 * Signs exactly the requested inputs with whichever of `keys` each one needs, the way a real wallet
 * does: P2WPKH and P2TR key path by the prevout, vault inputs through their update leaf
 * (tapLeafScript). Other inputs (the treasury's, the guardian's half) stay untouched.
 */
export async function signPsbtWithKeys(
  psbtBase64: string,
  signInputs: number[],
  keys: Uint8Array[],
): Promise<string> {
  const btc = await loadSigner();
  const tx = btc.Transaction.fromPSBT(base64.decode(psbtBase64), PSBT_OPTIONS);
  for (const index of signInputs) {
    if (index < 0 || index >= tx.inputsLength)
      throw new WalletError('failed', `The transaction has no input ${index} to sign.`);
    let signed = false;
    for (const key of keys) {
      try {
        if (tx.signIdx(key, index)) signed = true;
      } catch {
        // btc-signer throws when this key has nothing to sign in the input; try the next key
      }
    }
    if (!signed) throw new WalletError('failed', walletMessages.noSigner);
  }
  return base64.encode(tx.toPSBT());
}
