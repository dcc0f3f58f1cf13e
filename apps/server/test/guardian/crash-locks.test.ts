// A server killed at any step of a vault action holds the vault only until it is back.
// The killed process is a guardian whose database and chain stop answering at the kill point:
// nothing it would do after it reaches either, as with kill -9. Then another guardian starts over
// the same database and chain (a restart), recovers, and a deposit on the same vault succeeds at
// once: the clock has not moved, so the 120 s lease of the dead holder's lock has not run out.
// Runs on SQLite, and on PostgreSQL with FLOW_DATABASE_URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { TEST_NETWORK } from '@scure/btc-signer';
import { DEVNET_TERM_CONFIG } from '@unit/protocol';
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Chain } from '../../src/chain/port';
import { createGuardian, type Guardian } from '../../src/cosign';
import { vaultLock } from '../../src/cosign/locks';
import { getGuardianRequest, getVaultByPubkey } from '../../src/store';
import {
  call,
  codeOf,
  GUARDIAN_KEY,
  startHarness,
  TREASURY_KEY,
  type Harness,
  type TestWallet,
} from './harness';

type Step =
  /** the vault locked, the request not stored yet */
  | { at: 'request-insert' }
  /** right after the request reached this state */
  | { after: 'received' | 'validated' | 'cosigned' }
  /** the request broadcast and committed, its locks not freed yet */
  | { at: 'lock-release' };

const tableOf = (node: OperationNode | undefined): string | undefined => {
  if (!node) return undefined;
  if (node.kind === 'TableNode')
    return (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  if (node.kind === 'FromNode')
    return tableOf((node as unknown as { froms: OperationNode[] }).froms[0]);
  return undefined;
};

/** The request state a query writes, if it writes one into guardian_requests. */
function stateWritten(node: RootOperationNode): string | undefined {
  if (node.kind === 'InsertQueryNode' && tableOf(node.into) === 'guardian_requests')
    return 'received';
  if (node.kind === 'UpdateQueryNode' && tableOf(node.table) === 'guardian_requests') {
    for (const update of node.updates ?? []) {
      const column = (update.column as unknown as { column: { name: string } }).column.name;
      if (column === 'state' && update.value.kind === 'ValueNode')
        return String((update.value as unknown as { value: unknown }).value);
    }
  }
  return undefined;
}

/** The process dies at `step`: from then on its database refuses every query. */
class Kill implements KyselyPlugin {
  dead = false;
  private dying = false;
  constructor(private readonly step: Step) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.dead) throw new Error('process killed');
    const { node } = args;
    const step = this.step;
    const at =
      'at' in step &&
      (step.at === 'request-insert'
        ? node.kind === 'InsertQueryNode' && tableOf(node.into) === 'guardian_requests'
        : node.kind === 'DeleteQueryNode' && tableOf(node.from) === 'guardian_locks');
    if (at) {
      this.dead = true;
      throw new Error('process killed');
    }
    if ('after' in step && stateWritten(node) === step.after) this.dying = true;
    return node;
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    if (this.dying) this.dead = true;
    return Promise.resolve(args.result);
  }
}

/** The chain as the killed process sees it: once dead, nothing more leaves it. */
function dyingChain(chain: Chain, kill: Kill, sendsAfterDeath: boolean): Chain {
  const wrapped = Object.create(chain) as Chain;
  const never = new Promise<never>(() => undefined);
  for (const name of ['output', 'txStatus', 'txHex'] as const)
    (wrapped as unknown as Record<string, unknown>)[name] = (...args: unknown[]) =>
      kill.dead ? never : (chain[name] as (...a: unknown[]) => Promise<unknown>)(...args);
  // A kill between the network's acceptance and the next write: the broadcast still goes out.
  wrapped.broadcast = async (rawHex) => {
    if (kill.dead && !sendsAfterDeath) return never;
    return chain.broadcast(rawHex);
  };
  return wrapped;
}

function killedGuardian(h: Harness, step: Step, sendsAfterDeath = false) {
  const kill = new Kill(step);
  const guardian = createGuardian({
    db: h.store.db.withPlugin(kill),
    chain: dyingChain(h.chain, kill, sendsAfterDeath),
    oracle: h.oracle,
    guardianKey: GUARDIAN_KEY,
    treasuryKey: TREASURY_KEY,
    network: TEST_NETWORK,
    unitRuneId: h.devnet.unitRuneId,
    log: pino({ level: 'silent' }),
    now: () => h.clock.now,
    // The harness's requests write layout 2 with the devnet's term.
    vaultTerm: DEVNET_TERM_CONFIG,
  });
  return { kill, guardian };
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition never held');
}

describe('a crash holds a vault only until the restart', () => {
  let h: Harness;
  let wallets = 0;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  /** A wallet with an open vault, its debt 50,000 hundredths. */
  const withVault = async (): Promise<TestWallet> => {
    const wallet = await h.wallet(`crash ${wallets++}`);
    await call(h.guardian, 'vault.open', (await wallet.open(2_000_000n, 50_000n)).request);
    await h.devnet.mine(1);
    return wallet;
  };

  const locksOf = (wallet: TestWallet) =>
    h.store.db
      .selectFrom('guardian_locks')
      .selectAll()
      .where('lock_key', '=', vaultLock(wallet.vaultPubkey))
      .execute();

  /**
   * Kills a guardian at `step` of `action`, shows the vault is held, restarts, and deposits on the
   * same vault through the restarted guardian without the clock moving. Returns the killed
   * request's nonce and what the restart's recovery reported.
   */
  async function killAndRestart(
    wallet: TestWallet,
    action: 'deposit' | 'withdraw' | 'borrow',
    step: Step,
    sendsAfterDeath = false,
  ) {
    const { kill, guardian } = killedGuardian(h, step, sendsAfterDeath);
    const draft =
      action === 'deposit'
        ? await wallet.deposit(100_000n)
        : action === 'withdraw'
          ? await wallet.withdraw(100_000n)
          : await wallet.borrow(5_000n);
    void call(guardian, `vault.${action}`, draft.request).catch(() => undefined);
    await until(() => kill.dead);
    // The dead holder's lock is there, its lease running: a live guardian that has not recovered
    // refuses the vault.
    expect(await locksOf(wallet)).toHaveLength(1);
    const blocked = await wallet.deposit(10_000n);
    expect(await codeOf(call(h.guardian, 'vault.deposit', blocked.request))).toBe('vault_busy');

    const restarted: Guardian = h.restart();
    const report = await restarted.recover();
    expect(await locksOf(wallet)).toEqual([]);
    const before = (await getVaultByPubkey(h.store.db, wallet.vaultPubkey))!;
    const { request } = await wallet.deposit(10_000n);
    const result = await call<{ vault_txid: string }>(restarted, 'vault.deposit', request);
    const after = (await getVaultByPubkey(h.store.db, wallet.vaultPubkey))!;
    expect(after).toMatchObject({
      vault_txid: result.vault_txid,
      btc_locked: before.btc_locked + 10_000,
    });
    return { nonce: draft.request.nonce, report };
  }

  it('frees a lock whose request was never stored', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'borrow', { at: 'request-insert' });
    expect(await getGuardianRequest(h.store.db, nonce)).toBeNull();
    expect(report).toEqual({ committed: [], rebroadcast: [], failed: [] });
  });

  it('frees the vault of a request killed once received', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'deposit', { after: 'received' });
    expect(report.failed).toEqual([nonce]);
    expect((await getGuardianRequest(h.store.db, nonce))?.state).toBe('failed');
  });

  it('frees the vault of a request killed once validated', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'borrow', { after: 'validated' });
    expect(report.failed).toEqual([nonce]);
    const vault = (await getVaultByPubkey(h.store.db, wallet.vaultPubkey))!;
    expect(vault.unit_borrowed).toBe(50_000);
  });

  it('frees the vault of a co-signed request whose transaction never left', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'withdraw', { after: 'cosigned' });
    expect(report).toEqual({ committed: [nonce], rebroadcast: [nonce], failed: [] });
    expect((await getGuardianRequest(h.store.db, nonce))?.state).toBe('broadcast');
  });

  it('frees the vault of a co-signed request whose transaction reached the chain', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'withdraw', { after: 'cosigned' }, true);
    expect(report).toEqual({ committed: [nonce], rebroadcast: [], failed: [] });
    const { txid } = (await getGuardianRequest(h.store.db, nonce))!;
    expect(await h.chain.txStatus(txid!)).not.toBeNull();
  });

  it('frees the vault of a request killed after its broadcast, before it freed its locks', async () => {
    const wallet = await withVault();
    const { nonce, report } = await killAndRestart(wallet, 'withdraw', { at: 'lock-release' });
    expect(report).toEqual({ committed: [], rebroadcast: [], failed: [] });
    expect((await getGuardianRequest(h.store.db, nonce))?.state).toBe('broadcast');
  });

  it('leaves a lock naming no instance (a server before instance ids) to its lease', async () => {
    const wallet = await withVault();
    await h.store.db
      .insertInto('guardian_locks')
      .values({
        lock_key: vaultLock(wallet.vaultPubkey),
        owner: 'legacy:0000',
        instance_id: null,
        expires_at: h.clock.now + 120,
      })
      .execute();
    await h.restart().recover();
    expect(await locksOf(wallet)).toHaveLength(1);
    await h.store.db.deleteFrom('guardian_locks').where('owner', '=', 'legacy:0000').execute();
  });
});
