// While the local guardian network starts, `vault.*` calls are refused with a reason a user can
// read (guardians_refused), the other methods are served, and once it is ready nothing is refused.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '@unit/protocol';
import { rpcMethod, type RpcContext } from '../../src/rpc/json-rpc';
import { whileGuardiansStart } from '../../src/guardian-network/starting-gate';

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
