// The /network page's "Open validators" section: each configured validator's verdict in words
// (agrees or disagrees at block H, or unreachable, with why), both digests when they differ, and
// one summary sentence that leads with a disagreement.
import { describe, expect, it } from 'vitest';
import { render, screen, within } from '@testing-library/react';
import type { NetworkValidatorDto } from '@unit/protocol/wire';
import { ValidatorAgreement, validatorsSummary } from '../src/network/Validators';

const NOW = 1_800_000_000_000;
const at = Math.floor(NOW / 1000) - 20;
const D1 = '1a'.repeat(32);
const D2 = '2b'.repeat(32);
const agrees: NetworkValidatorDto = {
  ...{ url: 'https://v1.example', state: 'agrees', height: 812, digest: D1, app_digest: D1 },
  ...{ problem: null, checked_at: at },
};
const disagrees: NetworkValidatorDto = {
  ...{ url: 'https://v2.example', state: 'disagrees', height: 811, digest: D2, app_digest: D1 },
  ...{ problem: null, checked_at: at },
};
const unreachable: NetworkValidatorDto = {
  ...{ url: 'http://10.0.0.9:8090', state: 'unreachable', height: null, digest: null },
  ...{ app_digest: null, problem: 'It did not answer within 3 s.', checked_at: at },
};

describe('open validators on /network', () => {
  it('lists each validator with its verdict in words, and why one could not be asked', () => {
    render(<ValidatorAgreement validators={[agrees, disagrees, unreachable]} now={NOW} />);
    const section = screen.getByRole('region', { name: 'Open validators' });
    const items = within(section).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent('https://v1.example');
    expect(items[0]).toHaveTextContent('Agrees at block 812');
    expect(items[0]).toHaveTextContent('asked 20 s ago');
    expect(items[1]).toHaveTextContent('Disagrees at block 811');
    expect(items[1]).toHaveTextContent(
      "Its ledger digest is 2b2b2b2b…2b2b2b2b; this app's is 1a1a1a1a…1a1a1a1a.",
    );
    expect(items[2]).toHaveTextContent('Unreachable');
    expect(items[2]).toHaveTextContent('It did not answer within 3 s.');
    expect(items[0]).not.toHaveTextContent('digest');
    // A disagreement leads the section.
    expect(
      within(section).getByText(/^1 of 3 validators disagrees with this app's ledger: /),
    ).toBeInTheDocument();
  });

  it('sums the verdicts in one sentence', () => {
    expect(validatorsSummary([agrees, { ...agrees, url: 'b' }])).toBe(
      "All 2 validators agree with this app's ledger, rebuilt from the chain alone.",
    );
    expect(validatorsSummary([agrees, unreachable])).toBe(
      "1 of 2 validators agrees with this app's ledger, rebuilt from the chain alone.",
    );
    expect(validatorsSummary([unreachable])).toBe(
      'No validator could be asked just now, so nothing is known of their ledgers; this page asks again shortly.',
    );
    expect(validatorsSummary([disagrees])).toMatch(
      /^The validator disagrees with this app's ledger/,
    );
  });
});
