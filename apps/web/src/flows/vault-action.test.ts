import { describe, expect, it } from 'vitest';
import { FLOWS, type FlowAction } from './declarations';
import { flowFacts, shapeOfFlow, vaultActionOf } from './vault-action';

const FLOW_ACTIONS = Object.keys(FLOWS) as FlowAction[];

describe("a flow's facts follow from its action's ACTION_SHAPES entry", () => {
  it('names the action of every flow but the speed-up, which has none of its own', () => {
    expect(FLOW_ACTIONS.map((flow) => [flow, vaultActionOf(flow)])).toEqual([
      ['create', 'open'],
      ['deposit', 'deposit'],
      ['withdraw', 'withdraw'],
      ['borrow', 'borrow'],
      ['repay', 'repay'],
      ['repossess', 'repossess'],
      ['speedup', null],
    ]);
    expect(shapeOfFlow('speedup')).toBeNull();
  });

  it('takes the fee from the vault on withdraw only, the postage to the treasury on repay only', () => {
    const holding = (fact: 'feeFromVault' | 'postageToTreasury' | 'checksWalletCost') =>
      FLOW_ACTIONS.filter((flow) => flowFacts(flow)[fact]);
    expect(holding('feeFromVault')).toEqual(['withdraw']);
    expect(holding('postageToTreasury')).toEqual(['repay']);
    // SPEC §5: a UNIT amount paid from the wallet checks its sats against the cost apart.
    expect(holding('checksWalletCost')).toEqual(['borrow', 'repay']);
  });
});
