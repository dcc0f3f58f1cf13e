// BIP-322 "simple" message signatures for P2WPKH and P2TR (key path): the signature is the witness
// of a virtual `to_sign` transaction spending a virtual `to_spend` output that commits to the
// message. The server verifies with bip322-js; this small signer exists because that library needs
// Node's Buffer and bitcoinjs, too heavy for the browser, and only the devnet wallet (which holds
// its own key) signs here — extensions sign with their own BIP-322 implementation.
import { base64 } from '@scure/base';
import { RawTx, RawWitness, Script, Transaction } from '@scure/btc-signer';
import { concatBytes } from '@noble/hashes/utils.js';
import { sha256 } from '@noble/hashes/sha2.js';

/** BIP-322: message_hash = SHA256(SHA256(tag) || SHA256(tag) || message), tag BIP0322-signed-message. */
export function bip322MessageHash(message: string): Uint8Array {
  const tag = sha256(new TextEncoder().encode('BIP0322-signed-message'));
  return sha256(concatBytes(tag, tag, new TextEncoder().encode(message)));
}

/** The txid (internal byte order) of BIP-322's `to_spend` for this message and output script. */
function toSpendTxid(message: string, script: Uint8Array): Uint8Array {
  const raw = RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [
      {
        txid: new Uint8Array(32),
        index: 0xffffffff,
        finalScriptSig: Script.encode(['OP_0', bip322MessageHash(message)]),
        sequence: 0,
      },
    ],
    outputs: [{ amount: 0n, script }],
    lockTime: 0,
  });
  return sha256(sha256(raw));
}

/**
 * Signs `message` for the output `script` with `secretKey` (P2WPKH: the payment key; P2TR: the
 * internal key, `internalKey` x-only). Returns the base64 witness stack BIP-322 calls the
 * signature.
 */
export function signBip322Simple(o: {
  message: string;
  script: Uint8Array;
  secretKey: Uint8Array;
  internalKey?: Uint8Array;
}): string {
  // RawTx hashes in internal order; Transaction's input txid is the displayed (reversed) order.
  const txid = toSpendTxid(o.message, o.script).slice().reverse();
  // Low-R grinding, as Bitcoin Core signs: the BIP's vectors are reproduced byte for byte.
  const toSign = new Transaction({ version: 0, allowUnknownOutputs: true, lowR: true });
  toSign.addInput({
    txid,
    index: 0,
    sequence: 0,
    witnessUtxo: { script: o.script, amount: 0n },
    ...(o.internalKey ? { tapInternalKey: o.internalKey } : {}),
  });
  toSign.addOutput({ script: Script.encode(['RETURN']), amount: 0n });
  toSign.signIdx(o.secretKey, 0);
  toSign.finalizeIdx(0);
  const witness = toSign.getInput(0).finalScriptWitness;
  if (!witness) throw new Error('BIP-322 signing produced no witness');
  return base64.encode(RawWitness.encode(witness));
}
