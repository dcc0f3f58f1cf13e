import { Coins, Gauge, Lock } from 'lucide-react';
import { CONTENT } from '@unit/protocol';

// The welcome page's words, shared by the page (VaultPage) and the shell prerendered into
// index.html at build time (app/Shell.tsx), so the two never drift apart.

export function WelcomeHeadline() {
  return (
    <>
      <h1>Borrow UNIT against your Bitcoin</h1>
      <p className="muted">
        Open a vault, lock BTC as collateral and mint UNIT, the Bitcoin-native stablecoin.
      </p>
    </>
  );
}

/** `network`: the guardian set as GET /api/network reads it; null before it is read. */
export function WelcomeSteps({
  network = null,
}: {
  network?: { enabled: boolean; threshold: number; size: number } | null;
}) {
  return (
    <ol className="welcome__steps" aria-label="How it works">
      <li>
        <Lock size={20} aria-hidden="true" />
        <strong>Lock BTC</strong>
        <span className="muted">{CONTENT.reading.welcome.lockBtc(network)}</span>
      </li>
      <li>
        <Coins size={20} aria-hidden="true" />
        <strong>Borrow UNIT</strong>
        <span className="muted">
          Mint UNIT against it, up to a 160% collateral ratio, straight to your wallet.
        </span>
      </li>
      <li>
        <Gauge size={20} aria-hidden="true" />
        <strong>Stay above 135%</strong>
        <span className="muted">
          Watch health and the liquidation price; deposit or repay at any time.
        </span>
      </li>
    </ol>
  );
}
