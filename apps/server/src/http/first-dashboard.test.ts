// The dashboard's cards the page carries: the plain case drawn with the dashboard's own figures,
// every other case left to the app.
import { describe, expect, it } from 'vitest';
import {
  cardReadings,
  formatHealth,
  formatUsdCents,
  type BitcoinPriceDto,
  type VaultDto,
  type VaultHistoryRecordDto,
} from '@unit/protocol';
import { firstDashboard, withDashboard } from './first-dashboard';

const vault = {
  vault_id: 'ab'.repeat(32),
  name: 'Rainy <day> & "fund"',
  btc_locked: 10_000_000,
  unit_borrowed: 200_000,
  status: 'active',
} as VaultDto;
const now = 1_700_000_000;
const price: BitcoinPriceDto = { USD: 95_000, time: 1, stale: false, stale_reason: null };
const record = (confirmed: boolean) =>
  ({
    timestamp: 1,
    action: 'o',
    vault_amount: 10_000_000,
    amount_borrowed: 200_000,
    confirmed,
  }) as VaultHistoryRecordDto;

describe('the first paint of the dashboard', () => {
  it("draws the vault's figures as the dashboard computes them, its name escaped", () => {
    const html = firstDashboard({ now, vault, records: [record(true)], price })!;
    const { confirmed } = cardReadings([record(true)], { sats: 10_000_000, debtCents: 200_000 }, 95_000); // prettier-ignore
    expect(html).toContain('<h1>Rainy &lt;day&gt; &amp; &quot;fund&quot;</h1>');
    expect(html).toContain('data-testid="btc-deposited">0.1<!-- --> BTC<');
    expect(html).toContain('>$9,500.00<');
    expect(html).toContain('data-testid="unit-debt">2,000.00<!-- --> UNIT<');
    expect(html).toContain(`data-testid="liquidation-price">${formatUsdCents(confirmed.liquidationCents!)}<`); // prettier-ignore
    expect(html).toContain('data-testid="btc-price-now">$95,000.00<');
    expect(html).toContain(
      `aria-label="Collateral ratio ${formatHealth(confirmed.ratio)}, Healthy"`,
    );
    expect(html).not.toContain('skeleton" style="width:8ch');
  });

  it("draws the chart's 1D line from the 24h prices and points, a placeholder without them", () => {
    const prices = {
      data: [0, 1, 2].map((i) => ({ timestamp: now - 3_600 * (3 - i), price: 90_000 + 1_000 * i })),
      change: 1,
      error: null,
    };
    const points = [{ timestamp: now - 86_000, btc_locked: 10_000_000, unit_borrowed: 200_000, vaults: 1 }]; // prettier-ignore
    const drawn = firstDashboard({ now, vault, records: [record(true)], price, prices, points })!;
    expect(drawn).toMatch(/<path d="M[\d.]+,[\d.]+L[^"]+" class="chart__line"/);
    expect(drawn).toContain('Now <strong>');
    const waiting = firstDashboard({ now, vault, records: [record(true)], price, points })!;
    expect(waiting).not.toContain('chart__line');
    expect(waiting).toContain('chart__placeholder skeleton');
  });

  it('reads N/A and no band without debt', () => {
    const html = firstDashboard({
      now,
      vault: { ...vault, unit_borrowed: 0 },
      records: [],
      price,
    })!;
    expect(html).toContain('data-testid="liquidation-price">N/A<');
    expect(html).toContain('aria-label="Collateral ratio N/A"');
  });

  it('leaves to the app a pending record, a stale price, a liquidated or liquidatable vault', () => {
    expect(firstDashboard({ now, vault, records: [record(false)], price })).toBeNull();
    expect(
      firstDashboard({ now, vault, records: [], price: { ...price, stale: true } }),
    ).toBeNull();
    expect(firstDashboard({ now, vault: { ...vault, status: 'liquidated' }, records: [], price })).toBeNull(); // prettier-ignore
    expect(firstDashboard({ now, vault, records: [], price: { ...price, USD: 1_000 } })).toBeNull();
  });

  it("replaces the shell's page content only", () => {
    const shell =
      '<header>H</header><main class="main"><section class="welcome">W</section></main>';
    expect(withDashboard(shell, '<div>$&</div>')).toBe(
      '<header>H</header><main class="main"><div>$&</div></main>',
    );
    expect(withDashboard(shell, null)).toBe(shell);
    expect(withDashboard('<div id="root"></div>', '<div>D</div>')).toBe('<div id="root"></div>');
  });
});
