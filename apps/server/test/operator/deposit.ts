// A deposit to an opened vault, as the web app builds it, sent over the server's /guardian socket:
// the vault as the server's database has it, the new output at a fresh quote, planned, built and
// signed through @unit/bitcoin's request runner as the cluster helpers do (test/cluster/instances.ts).
import type { RunningApp } from '../support';
import { connect, ownerVault, prepareRequest, type VaultOwner } from '../cluster/instances';

export async function deposit(via: RunningApp, owner: VaultOwner, amount: bigint) {
  const vault = await ownerVault(via, owner, (th, stamp) => [via.oracle.thresholdHash(th, stamp)]);
  const socket = await connect(via);
  try {
    const { request } = await prepareRequest(
      via,
      socket,
      owner,
      { action: 'deposit', btc: amount, unit: 0n, vault },
      { quote: async (th, ts) => via.oracle.quote(th, ts) },
    );
    return await socket.call('vault.deposit', request);
  } finally {
    socket.close();
  }
}
