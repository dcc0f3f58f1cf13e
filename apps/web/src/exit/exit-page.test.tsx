// /exit from the chain alone: the page reads a vault of layout 2 from the esplora typed in (a fake
// esplora at fetch, the edge of this unit test; the command's test runs it against the devnet),
// refuses before the exit height with the blocks left, and finishes the exit from the wallet's
// signed PSBT, refusing a PSBT the wallet changed or did not sign.
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

const owner = new Uint8Array(32).fill(11);
const ownerPub = schnorr.getPublicKey(owner);
const TERM = { settleHeight: 300, exitHeight: 320 };
const vault = vaultOutput({
  vaultPubkey: ownerPub,
  guardPubkey: schnorr.getPublicKey(new Uint8Array(32).fill(12)),
  thresholdHash: thresholdHash(new Uint8Array(32).fill(13)),
  network: TEST_NETWORK,
  term: TERM,
});
const TXID = 'ab'.repeat(32);
const record = stateRecordScript({
  action: 'd',
  unitDebt: 0n,
  vaultSats: 90_000n,
  quotePriceCents: 1n,
  thresholdCents: 0n,
  quoteStamp: 1,
  nonce: new Uint8Array(16),
  expiry: 2,
  term: { ...TERM, exitBranch: vault.exitBranch! },
});
const to = p2wpkh(new Uint8Array(33).fill(2), TEST_NETWORK).address!;

function fakeEsplora(tip: number) {
  const answers: Record<string, unknown> = {
    [`/address/${vault.address}/utxo`]: [{ txid: TXID, vout: 0 }],
    [`/tx/${TXID}`]: {
      txid: TXID,
      vout: [
        {
          scriptpubkey: hex.encode(vault.script),
          scriptpubkey_address: vault.address,
          value: 90_000,
        },
        { scriptpubkey: hex.encode(record), value: 0 },
      ],
      status: { confirmed: true },
    },
    '/blocks/tip/height': tip,
  };
  return vi.fn(async (url: string) => {
    const path = new URL(url).pathname.replace(/^\/api/, '');
    const body = answers[path];
    return body === undefined
      ? { ok: false, status: 404, text: async () => 'not found' }
      : { ok: true, status: 200, text: async () => JSON.stringify(body) };
  });
}

afterEach(() => vi.unstubAllGlobals());

describe('/exit', () => {
  it('reads the vault from the typed esplora and refuses before the exit height', async () => {
    const fetch = fakeEsplora(310);
    vi.stubGlobal('fetch', fetch);
    const user = userEvent.setup();
    render(<ExitPage />);
    await user.type(screen.getByLabelText('Esplora URL of the chain'), 'http://chain.test/api');
    await user.type(screen.getByLabelText('Vault id or vault address'), vault.address);
    await user.click(screen.getByRole('button', { name: 'Read the vault' }));
    const facts = await screen.findByLabelText('The vault on the chain');
    expect(facts.textContent).toContain('exit           opens at block 320, in 10 blocks');
    expect(
      fetch.mock.calls.every(([url]) => String(url).startsWith('http://chain.test/api/')),
    ).toBe(true);
    await user.type(screen.getByLabelText('Vault key (x-only, hex)'), hex.encode(ownerPub));
    await user.type(screen.getByLabelText('Send the vault to'), to);
    await user.click(screen.getByRole('button', { name: 'Build the exit' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'The exit opens at block 320 and the chain is at block 310: wait 10 more blocks and try again.',
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
