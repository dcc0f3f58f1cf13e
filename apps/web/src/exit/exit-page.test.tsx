// /exit from the chain alone: the page reads a vault of layout 2 from the esplora typed in (a fake
// esplora at fetch, the edge of this unit test; the browser journey and the command's test run it
// against the devnet), says when its exit opens, refuses before the exit height with the blocks
// left and every bad input with a sentence before anything is signed, and finishes the exit from
// the wallet's signed PSBT, refusing a PSBT the wallet changed or did not sign.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { schnorr } from '@noble/curves/secp256k1.js';
import { base64, hex } from '@scure/base';
import { p2wpkh, TEST_NETWORK, Transaction } from '@scure/btc-signer';
import {
  planExit,
  stateRecordScript,
  thresholdHash,
  vaultOutput,
  verifyInputs,
} from '@unit/bitcoin';
import { ExitPage } from './ExitPage';
import { exitPsbtBase64, finishFromSignedPsbt } from './exit-signing';
import { exitVault } from '../../../../packages/bitcoin/test/exit-fixture';

const owner = new Uint8Array(32).fill(11);
const ownerPub = schnorr.getPublicKey(owner);
const TERM = { settleHeight: 300, exitHeight: 320 };
const TXID = 'ab'.repeat(32);
const { vault, tx: vaultTx } = exitVault(
  {
    vaultPubkey: ownerPub,
    guardPubkey: schnorr.getPublicKey(new Uint8Array(32).fill(12)),
    secret: new Uint8Array(32).fill(13),
  },
  TERM,
  TXID,
);
const to = p2wpkh(new Uint8Array(33).fill(2), TEST_NETWORK).address!;

function fakeEsplora(tip: number | (() => number), more: Record<string, unknown> = {}) {
  const answers: Record<string, unknown> = {
    ...more,
    [`/address/${vault.address}/utxo`]: [{ txid: TXID, vout: 0 }],
    [`/tx/${TXID}`]: vaultTx,
  };
  return vi.fn(async (url: string, _init?: RequestInit) => {
    const path = new URL(url).pathname.replace(/^\/api/, '');
    const body =
      path === '/blocks/tip/height' ? (typeof tip === 'number' ? tip : tip()) : answers[path];
    return body === undefined
      ? { ok: false, status: 404, text: async () => 'not found' }
      : { ok: true, status: 200, text: async () => JSON.stringify(body) };
  });
}

afterEach(() => vi.unstubAllGlobals());

/** Replaces a field's text as a paste does: typing 64 characters a key at a time is slow. */
async function fill(user: ReturnType<typeof userEvent.setup>, field: HTMLElement, text: string) {
  await user.clear(field);
  await user.click(field);
  await user.paste(text);
}

async function readVault(user: ReturnType<typeof userEvent.setup>, vaultInput = vault.address) {
  await fill(user, screen.getByLabelText('Esplora URL of the chain'), 'http://chain.test/api');
  await fill(user, screen.getByLabelText('Vault id or vault address'), vaultInput);
  await user.click(screen.getByRole('button', { name: 'Read the vault' }));
}

describe('/exit', () => {
  it('reads the vault from the typed esplora and refuses before the exit height', async () => {
    const fetch = fakeEsplora(310);
    vi.stubGlobal('fetch', fetch);
    const user = userEvent.setup();
    render(<ExitPage />);
    await readVault(user);
    const heading = await screen.findByRole('heading', { name: '2. The vault on the chain' });
    expect(document.activeElement).toBe(heading);
    expect(screen.getByText(/^The exit is not open yet\./).textContent).toMatch(
      /^The exit is not open yet\. It opens at block 320, in 10 blocks: around \d{4}-\d\d-\d\d \d\d:\d\d UTC if blocks keep coming every 10 minutes\.$/,
    );
    expect(screen.getByText('0.0009 BTC (90,000 sats)')).toBeTruthy();
    expect(
      fetch.mock.calls.every(([url]) => String(url).startsWith('http://chain.test/api/')),
    ).toBe(true);
    await fill(user, screen.getByLabelText(/^Vault key/), hex.encode(ownerPub));
    await fill(user, screen.getByLabelText('Send the whole vault to'), to);
    await user.click(screen.getByRole('button', { name: 'Build the exit' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The exit opens at block 320 and the chain is at block 310: wait 10 more blocks and try again.',
    );
  });

  it('builds the exit against the height read again when building, once it is open', async () => {
    let tip = 319;
    const fetch = fakeEsplora(() => tip);
    vi.stubGlobal('fetch', fetch);
    const user = userEvent.setup();
    render(<ExitPage />);
    await readVault(user);
    await screen.findByText(/^The exit is not open yet/);
    tip = 320;
    await fill(user, screen.getByLabelText(/^Vault key/), hex.encode(ownerPub));
    await fill(user, screen.getByLabelText('Send the whole vault to'), to);
    await user.click(screen.getByRole('button', { name: 'Build the exit' }));
    const summary = await screen.findByText(/^The exit sends/);
    expect(summary.textContent).toMatch(
      /^The exit sends 89,\d{3} sats to tb1\w+; the fee is \d+ sats \(\d+ vB at 2 sat\/vB\)\. Nothing is signed yet\.$/,
    );
    expect(document.activeElement).toBe(summary);
    expect(screen.getByText(/^The exit is open: since block 320/)).toBeTruthy();
  });

  it('says an esplora that cannot be reached could not be, and what to do', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch');
      }),
    );
    const user = userEvent.setup();
    render(<ExitPage />);
    await readVault(user);
    expect((await screen.findByRole('alert')).textContent).toBe(
      "The esplora at http://chain.test/api could not be reached (Failed to fetch): check the URL, that it lets web pages read it, and your connection, or type another esplora's URL.",
    );
    expect(screen.queryByRole('heading', { name: '2. The vault on the chain' })).toBeNull();
  });

  it('refuses bad input with a sentence before anything is signed', async () => {
    const fetch = fakeEsplora(400);
    vi.stubGlobal('fetch', fetch);
    const user = userEvent.setup();
    render(<ExitPage />);
    await user.click(screen.getByRole('button', { name: 'Read the vault' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Type the esplora URL of the chain the vault is on, such as https://mempool.space/api.',
    );
    await readVault(user, 'not-a-vault');
    expect((await screen.findByRole('alert')).textContent).toBe(
      'That is neither a vault id (64 hexadecimal characters) nor a Bitcoin address: copy the vault id or the vault address again.',
    );
    expect(fetch).not.toHaveBeenCalled();
    await user.clear(screen.getByLabelText('Vault id or vault address'));
    await fill(user, screen.getByLabelText('Vault id or vault address'), vault.address);
    await user.click(screen.getByRole('button', { name: 'Read the vault' }));
    await screen.findByText(/^The exit is open/);
    const key = screen.getByLabelText(/^Vault key/);
    const dest = screen.getByLabelText('Send the whole vault to');
    const fee = screen.getByLabelText('Fee rate (sat/vB)');
    const build = () => user.click(screen.getByRole('button', { name: 'Build the exit' }));
    const cases: Array<[() => Promise<void>, string | RegExp]> = [
      [() => user.type(key, 'abc'), /^The vault key must be 64 hexadecimal characters/],
      [
        async () => {
          await fill(user, key, hex.encode(schnorr.getPublicKey(new Uint8Array(32).fill(4))));
        },
        /^This output is not the vault these facts describe/,
      ],
      [
        async () => {
          await fill(user, key, hex.encode(ownerPub));
          await fill(user, dest, 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4');
        },
        'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4 is a mainnet address, not one of the network the vault is on: enter an address of that network.',
      ],
      [
        async () => {
          await fill(user, dest, 'tb1qnot-an-address');
        },
        'The address to send the vault to is not a Bitcoin address: copy it again from the wallet that will receive the vault.',
      ],
      [
        async () => {
          await fill(user, dest, to);
          await fill(user, fee, '2.5');
        },
        'The fee rate must be a whole number of sat/vB from 1 to 1000: enter another.',
      ],
      [
        async () => {
          await fill(user, fee, '1000');
        },
        /^The vault holds 90000 sats and a fee of \d+ sats \(\d+ vB at 1000 sat\/vB\) would leave less than 546 sats to send: lower the fee rate\.$/,
      ],
    ];
    for (const [act, refusal] of cases) {
      await act();
      await build();
      const alert = await screen.findByRole('alert');
      if (typeof refusal === 'string') expect(alert.textContent).toBe(refusal);
      else expect(alert.textContent).toMatch(refusal);
      expect(screen.queryByText(/^The exit sends/)).toBeNull();
    }
    expect(fetch.mock.calls.some(([, init]) => (init as RequestInit)?.method === 'POST')).toBe(
      false,
    );
  });
});

describe("the wallet's signed PSBT", () => {
  const plan = () =>
    planExit({
      vaultPubkey: ownerPub,
      exitHeight: TERM.exitHeight,
      exitBranch: vault.exitBranch!,
      utxo: { txid: TXID, vout: 0, script: vault.script, amount: 90_000n },
      toAddress: to,
      feeRate: 2,
      tipHeight: TERM.exitHeight,
      network: TEST_NETWORK,
    });

  it('finishes an exit the script check takes', () => {
    const p = plan();
    const wallet = Transaction.fromPSBT(base64.decode(exitPsbtBase64(p)), {
      allowUnknownInputs: true,
    });
    wallet.signIdx(owner, 0);
    const tx = finishFromSignedPsbt(p, base64.encode(wallet.toPSBT()));
    expect(verifyInputs(tx.hex, [{ script: vault.script, amount: 90_000n }])).toEqual({ ok: true });
  });

  it('refuses a PSBT the wallet changed, did not sign, or that is not one', () => {
    const p = plan();
    const unsigned = exitPsbtBase64(p);
    expect(() => finishFromSignedPsbt(p, unsigned)).toThrow(/no signature of the vault key/);
    expect(() => finishFromSignedPsbt(p, 'not a psbt')).toThrow(/not a PSBT/);
    const changed = Transaction.fromPSBT(base64.decode(unsigned), { allowUnknownInputs: true });
    changed.updateOutput(0, { amount: 1_000n });
    expect(() => finishFromSignedPsbt(p, base64.encode(changed.toPSBT()))).toThrow(
      /changed the exit/,
    );
  });
});

describe('/exit while a claim of the vault waits for a block', () => {
  const CLAIM = 'cd'.repeat(32);
  const claimant = vaultOutput({
    vaultPubkey: schnorr.getPublicKey(new Uint8Array(32).fill(14)),
    guardPubkey: schnorr.getPublicKey(new Uint8Array(32).fill(12)),
    thresholdHash: thresholdHash(new Uint8Array(32).fill(13)),
    network: TEST_NETWORK,
    term: TERM,
  });
  const claimRecord = stateRecordScript({
    ...{ action: 'x', unitDebt: 59_000n, vaultSats: 150_000n, quotePriceCents: 1n },
    ...{ thresholdCents: 0n, quoteStamp: 1, nonce: new Uint8Array(16), expiry: 2 },
    term: { ...TERM, exitBranch: claimant.exitBranch! },
  });
  const claimTx = {
    txid: CLAIM,
    vout: [
      {
        scriptpubkey: hex.encode(claimant.script),
        scriptpubkey_address: claimant.address,
        value: 150_000,
      },
      { scriptpubkey: hex.encode(claimRecord), value: 0 },
    ],
    status: { confirmed: false },
    // 350 vB paying 17,500 sats: 50 sat/vB
    fee: 17_500,
    weight: 1_400,
  };

  it('reads the vault, not the claimant’s, says the claim waits, and asks a fee that beats it', async () => {
    vi.stubGlobal(
      'fetch',
      fakeEsplora(330, {
        [`/tx/${TXID}/outspend/0`]: { spent: true, txid: CLAIM, status: { confirmed: false } },
        [`/tx/${CLAIM}`]: claimTx,
      }),
    );
    const user = userEvent.setup();
    render(<ExitPage />);
    await readVault(user, TXID);
    expect(
      await screen.findByText(
        `A claim of this vault, transaction ${CLAIM}, is waiting for a block: your exit replaces it only if it pays a higher fee rate and a higher fee than the claim's (50 sat/vB, 17500 sats), so choose a fee rate above it.`,
      ),
    ).toBeTruthy();
    expect(screen.getByText('0.0009 BTC (90,000 sats)')).toBeTruthy();
    const fee = screen.getByLabelText('Fee rate (sat/vB)');
    expect((fee as HTMLInputElement).value).toBe('51');

    await fill(user, screen.getByLabelText(/^Vault key/), hex.encode(ownerPub));
    await fill(user, screen.getByLabelText('Send the whole vault to'), to);
    await user.click(screen.getByRole('button', { name: 'Build the exit' }));
    const warning = await screen.findByRole('alert');
    const least = Number(/to (\d+) sat\/vB or more/.exec(warning.textContent ?? '')?.[1]);
    expect(warning.textContent).toBe(
      `At 51 sat/vB this exit does not replace the claim waiting for a block, and the chain would keep the claim: set the fee rate to ${least} sat/vB or more and build it again.`,
    );
    // the exit is smaller than the claim: its fee, not its rate, must beat the claim's
    expect(least).toBeGreaterThan(51);
    await fill(user, fee, String(least));
    await user.click(screen.getByRole('button', { name: 'Build the exit' }));
    const summary = await screen.findByText(/^The exit sends/);
    const paid = Number(
      /the fee is ([\d,]+) sats/.exec(summary.textContent ?? '')![1]!.replace(/,/g, ''),
    );
    expect(paid).toBeGreaterThan(17_500);
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
