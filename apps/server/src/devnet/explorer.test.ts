import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../html';
import { renderTxPage } from './explorer';
import type { DevnetTx } from './devnet';

describe('explorer pages', () => {
  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });

  it('shows a burn when UNIT goes in and less comes out', () => {
    const tx: DevnetTx = {
      txid: 'aa'.repeat(32),
      hex: '',
      fee: 300,
      vsize: 150,
      weight: 600,
      status: { confirmed: false },
      confirmations: 0,
      inputs: [
        {
          txid: 'bb'.repeat(32),
          vout: 0,
          is_coinbase: false,
          prevout: {
            vout: 0,
            value: 10_000,
            script_hex: '',
            address: 'tb1q<evil>',
            unit_amount: 12_345,
            spent_txid: null,
          },
        },
      ],
      outputs: [
        { vout: 0, value: 9_700, script_hex: '', address: null, unit_amount: 0, spent_txid: null },
      ],
      unit_burned: 12_345,
    };
    const html = renderTxPage('/explorer', tx);
    expect(html).toContain('Unconfirmed: waiting in the mempool');
    expect(html).toContain('123.45 UNIT burned');
    expect(html).toContain('tb1q&lt;evil&gt;');
    expect(html).not.toContain('<evil>');
  });
});
