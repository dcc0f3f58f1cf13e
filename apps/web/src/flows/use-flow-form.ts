import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useConfig } from '../api/config';
import { useIncomingSats } from '../api/incoming';
import { useAccountPostage } from '../api/missions';
import { usePosition } from '../api/position';
import { useWallet } from '../wallet';
import type { AmountValue } from './AmountInput';
import type { FlowDecl } from './declarations';
import { emptyForm, formModel, type FormState, type MaxPlan } from './form-model';
import type { FlowInput } from './flow-types';
import type { MaxDepositRequest } from './max-deposit';
import type { FlowPreview } from './preview';

// The refinement needs the Bitcoin libraries: loaded on the first Max, never with the dashboard.
const loadMaxDeposit = async (request: MaxDepositRequest) =>
  (await import('./max-deposit')).loadMaxDeposit(request);

/** What the steps of one flow share: what was typed, Max, and the model computed from them. */
export function useFlowForm(decl: FlowDecl) {
  const config = useConfig();
  const wallet = useWallet();
  const position = usePosition();
  const [form, setForm] = useState<FormState>(emptyForm);
  const [maxPlan, setMaxPlan] = useState<MaxPlan | null>(null);
  // Max chosen: the amount is the refined maximum at whatever fee rate is selected.
  const [atMax, setAtMax] = useState(false);
  // Only the latest Max counts: typing or another Max meanwhile makes an answer stale.
  const maxRun = useRef(0);

  // A form that spends the wallet's sats reads them afresh: a transaction that confirmed since the
  // balance was fetched has changed it, and the maxima follow it (SPEC §5).
  const queryClient = useQueryClient();
  useEffect(() => {
    void queryClient.invalidateQueries({ queryKey: ['balance'] });
  }, [queryClient]);

  const satsAddress = wallet.account?.satsAddress ?? null;
  const postage = useAccountPostage(config, satsAddress);
  const incomingSats = useIncomingSats(config, satsAddress).data ?? 0n;
  const model = formModel({
    decl,
    form,
    position,
    constants: config.constants,
    postage,
    satsAddress,
    incomingSats,
    atMax,
    maxPlan,
  });

  /** SPEC §5: Max of a deposit or a vault opening, refined using the wallet's UTXOs. */
  const refinesMax = decl.form.btc?.refinesMax;
  const chooseMax = async () => {
    const account = wallet.account;
    if (!account || !refinesMax) return;
    const run = ++maxRun.current;
    setAtMax(true);
    setMaxPlan({ status: 'loading' });
    try {
      const maxAt = await loadMaxDeposit({
        action: refinesMax,
        config,
        account,
        vault: position.vault,
        priceUsd: position.priceUsd,
        postageSats: postage.sats,
      });
      if (run === maxRun.current) setMaxPlan({ status: 'ready', maxAt });
    } catch {
      if (run === maxRun.current) setMaxPlan({ status: 'error' });
    }
  };

  const changeBtc = (btc: AmountValue) => {
    // Switching BTC/USD keeps Max; any other change replaces it (and a Max still being fetched).
    if (atMax && btc.mode !== form.btc.mode) {
      setForm({ ...form, btc });
      return;
    }
    if (atMax) {
      setAtMax(false);
      if (maxPlan?.status !== 'ready') {
        maxRun.current++;
        setMaxPlan(null);
      }
    }
    setForm({ ...form, btc });
  };

  /** What the flow runs with: the amounts as the form shows them, and its before and after. */
  const request = (): { input: FlowInput; preview: FlowPreview } => ({
    input: { name: form.name.trim(), sats: model.sats, cents: model.cents, feeRate: model.feeRate },
    preview: { before: model.before, after: model.after, priceUsd: model.priceUsd },
  });

  return {
    form,
    request,
    setForm,
    model,
    postage,
    incomingSats,
    constants: config.constants,
    chooseMax: refinesMax ? () => void chooseMax() : null,
    changeBtc,
  };
}

export type FlowForm = ReturnType<typeof useFlowForm>;
