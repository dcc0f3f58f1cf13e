import { DoorOpen } from 'lucide-react';
import { hex } from '@scure/base';
import { scriptToAddress } from '@unit/bitcoin';
import { vaultExitedText, type VaultDto } from '@unit/protocol';
import { useConfig } from '../api/config';
import { useVaultHistory } from '../api/vault-history';
import { bitcoinNetwork } from '../flows/client-reads';
import { TxLink } from '../ui/TxLink';

/**
 * Said once the owner left the vault through its exit leaf (its history record `e` gives the
 * figures): the vault is closed, its collateral went to the exit's address by which transaction,
 * the debt no one repaid, and what to do.
 */
export function VaultExitedBanner({ vault }: { vault: Pick<VaultDto, 'vault_id' | 'status'> }) {
  const config = useConfig();
  const history = useVaultHistory(vault.status === 'exited' ? vault.vault_id : null);
  if (vault.status !== 'exited') return null;
  const record = history.data?.find((r) => r.action === 'e');
  const address = record?.utxo_script
    ? scriptToAddress(hex.decode(record.utxo_script), bitcoinNetwork(config))
    : null;
  const text = record
    ? vaultExitedText({
        collateralSats: BigInt(record.btc_amt),
        debtCents: BigInt(record.unit_amt),
        txid: record.transaction_id,
        address,
      })
    : null;
  return (
    <div className="banner banner--info" role="status" data-testid="vault-exited">
      <span className="banner__mark" aria-hidden="true">
        <DoorOpen size={18} />
      </span>
      <div className="banner__body">
        <p className="banner__title">
          <strong>{text?.title ?? 'This vault was closed by its exit'}</strong>
        </p>
        {text && record ? (
          <>
            <p className="banner__text banner__text--strong banner__text--ids">{text.body}</p>
            <p className="banner__actions">
              <TxLink txid={record.transaction_id} />
            </p>
            <p className="banner__text">{text.whatToDo}</p>
          </>
        ) : null}
      </div>
    </div>
  );
}
