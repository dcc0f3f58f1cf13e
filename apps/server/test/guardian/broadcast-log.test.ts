// A user's "my borrow failed" is traced from the log: every broadcast line names the action, the
// vault and the request (its nonce, the id the page shows) beside the transaction id. The real
// guardian on a real devnet, its log read as an operator reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { call, startHarness, type Harness, type TestWallet } from './harness';

interface Line {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const lines: Line[] = [];
let h: Harness;
let alice: TestWallet;

beforeAll(async () => {
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  h = await startHarness(undefined, undefined, log);
  alice = await h.wallet('alice');
});
afterAll(() => h.close());

describe('broadcast log lines', () => {
  it('name the action, the vault and the request of each transaction sent', async () => {
    const open = await alice.open(1_000_000n, 50_000n);
    const opened = await call<{ vault_txid: string; vault_id: string }>(
      h.guardian,
      'vault.open',
      open.request,
    );
    const borrow = await alice.borrow(1_000n);
    const borrowed = await call<{ vault_txid: string }>(h.guardian, 'vault.borrow', borrow.request);
    const sent = lines.filter((l) => l.msg === 'vault transaction broadcast');
    expect(sent).toEqual([
      expect.objectContaining({
        action: 'vault.open',
        vault: alice.vaultPubkey,
        request: open.request.nonce,
        txid: opened.vault_txid,
      }),
      expect.objectContaining({
        action: 'vault.borrow',
        vault: alice.vaultPubkey,
        vaultId: opened.vault_id,
        request: borrow.request.nonce,
        txid: borrowed.vault_txid,
      }),
    ]);
  });
});
