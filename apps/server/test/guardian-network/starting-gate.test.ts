// While the local guardian network starts, `vault.*` calls are refused with a reason a user can
// read (guardians_refused), the other methods are served, and once it is ready nothing is refused.
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '@unit/protocol';
import { rpcMethod, type RpcContext } from '../../src/rpc/json-rpc';
import { whileGuardiansStart } from '../../src/network-client/starting-gate';
import { startTestApp, type RunningApp } from '../support';
import { callOnce } from '../guardian-client';

const served = {
  'vault.open': rpcMethod(z.unknown(), async () => 'opened'),
  'guardian.info': rpcMethod(z.unknown(), async () => 'info'),
};
const ctx = {} as RpcContext;

describe('the vault gate while the guardian network starts', () => {
  it('refuses vault actions while starting and serves them once ready', async () => {
    let reason: string | null =
      'The guardian network is starting (1 of 2 needed guardians ready); try again in a few seconds.';
    const methods = whileGuardiansStart(served, () => reason);
    const refused = await methods['vault.open']!.handler({}, ctx).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'guardians_refused', message: reason });
    expect(await methods['guardian.info']!.handler({}, ctx)).toBe('info');
    reason = null;
    expect(await methods['vault.open']!.handler({}, ctx)).toBe('opened');
  });

  it('leaves the methods as they are without a gate (GUARDIAN_NETWORK off or external)', () => {
    expect(whileGuardiansStart(served)).toBe(served);
  });
});

describe('the app with a gate (what main.ts passes while its local network starts)', () => {
  let running: RunningApp | null = null;
  afterAll(async () => running?.stop());

  it('answers a vault call on the /guardian socket with the reason, and serves it once ready', async () => {
    let reason: string | null =
      'The guardian network is starting (0 of 2 needed guardians ready); try again in a few seconds.';
    running = await startTestApp({}, { gate: () => reason });
    const request = {
      original_txid: '11'.repeat(32),
      vault_pubkey: '22'.repeat(32),
      psbt: 'cHNidP8BAAoCAAAAAAAAAAAAAAA=',
    };
    const refused = await callOnce(running.url, 'vault.speedup', request).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'guardians_refused', message: reason });
    reason = null;
    // Past the gate, the guardian itself answers (this made-up transaction is not one it knows).
    const answered = await callOnce(running.url, 'vault.speedup', request).catch((e: unknown) => e);
    expect(answered).toBeInstanceOf(DomainError);
    expect((answered as DomainError).code).not.toBe('guardians_refused');
  }, 60_000);
});
