import { useConfig } from '../api/config';

/** A block-explorer link to a transaction; the explorer's URL comes from /api/config. */
export function TxLink({ txid }: { txid: string }) {
  const config = useConfig();
  return (
    <a
      className="tx-link"
      href={`${config.explorerUrl.replace(/\/+$/, '')}/tx/${txid}`}
      target="_blank"
      rel="noreferrer"
    >
      View transaction {txid.slice(0, 8)}…{txid.slice(-6)}
    </a>
  );
}
