import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import type { LiquidatedVaultDto } from '@unit/protocol';
import { applyLiveEvent } from './live';

const listed = 'aa'.repeat(32);
const other = 'bb'.repeat(32);

function withList(): QueryClient {
  const client = new QueryClient();
  client.setQueryData(['liquidations'], [{ vault_id: listed } as LiquidatedVaultDto]);
  return client;
}

const invalidated = (client: QueryClient) =>
  client.getQueryCache().find({ queryKey: ['liquidations'] })!.state.isInvalidated;

describe('a pushed vault change and the liquidations list', () => {
  it('refetches the list for a change of a vault it lists, whatever its kind', () => {
    const client = withList();
    applyLiveEvent(client, { type: 'vault', data: { vault_id: listed, kind: 'action' } });
    expect(invalidated(client)).toBe(true);
  });

  it('refetches the list for a new liquidation', () => {
    const client = withList();
    applyLiveEvent(client, { type: 'vault', data: { vault_id: other, kind: 'liquidation' } });
    expect(invalidated(client)).toBe(true);
  });

  it('leaves the list alone for an action on a vault it does not list', () => {
    const client = withList();
    applyLiveEvent(client, { type: 'vault', data: { vault_id: other, kind: 'action' } });
    expect(invalidated(client)).toBe(false);
  });
});

describe("a pushed vault change and that vault's liquidation", () => {
  it("refetches the vault's own liquidation outcome, and no other vault's", () => {
    const client = new QueryClient();
    client.setQueryData(['vault-liquidation', listed], { state: 'repossessed' });
    client.setQueryData(['vault-liquidation', other], { state: 'repossessed' });
    applyLiveEvent(client, { type: 'vault', data: { vault_id: listed, kind: 'action' } });
    const stale = (id: string) =>
      client.getQueryCache().find({ queryKey: ['vault-liquidation', id] })!.state.isInvalidated;
    expect(stale(listed)).toBe(true);
    expect(stale(other)).toBe(false);
  });
});
