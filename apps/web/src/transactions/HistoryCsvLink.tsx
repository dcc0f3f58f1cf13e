import { routeUrl } from '../api/call';

/**
 * 'Download CSV': the vault's whole history, not just the loaded page, as the server streams it
 * (GET /api/vaults/:id/history.csv).
 */
export function HistoryCsvLink({ vaultId }: { vaultId: string | null }) {
  if (!vaultId) return null;
  return (
    <a
      className="btn btn--small tx-csv"
      href={routeUrl('historyCsv', { params: { vaultId } })}
      download
    >
      Download CSV
    </a>
  );
}
