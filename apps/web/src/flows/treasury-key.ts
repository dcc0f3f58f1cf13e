// The treasury input's key-path internal key, for the PSBT the wallet builds.
import { hex } from '@scure/base';
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer';
import { addressToScript } from '@unit/bitcoin';
import type { ConfigDto } from '@unit/protocol';

/**
 * This server's treasury key, or none when the treasury is the guardian network's
 * `OP_1 <group key>` (/api/config then serves the group key, which already is the output key, and
 * its internal key is nobody's to give).
 */
export function treasuryInternalKey(config: ConfigDto): { internalKey?: Uint8Array } {
  const network = config.network === 'mainnet' ? NETWORK : TEST_NETWORK;
  const script = addressToScript(config.treasuryAddress, network);
  const isOutputKey = hex.encode(script) === `5120${config.treasuryPubkey}`;
  return isOutputKey ? {} : { internalKey: hex.decode(config.treasuryPubkey) };
}
