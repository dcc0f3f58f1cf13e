import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ChartLine } from 'lucide-react';
import { formatUsdCents, toUserMessage } from '@unit/protocol';
import { bitcoinPriceQueryOptions, useBitcoinPrice } from '../api/bitcoin-price';
import { callApi } from '../api/call';

/** The steps offered beside the field: enough to walk a vault into and out of Risky. */
const STEPS = [-10, -5, 5, 10] as const;

export const setDevnetPrice = (usd: number) => callApi('devnetPrice', { body: { usd } });

/**
 * The devnet's BTC price, set from the wallet menu (it needed the CLI). Devnet only: the
 * server refuses it elsewhere, and the menu shows it only there. The new price reaches every open
 * page through the live stream; this page also reads it at once.
 */
export function DevnetPrice() {
  const price = useBitcoinPrice();
  const queryClient = useQueryClient();
  const [value, setValue] = useState('');
  const [state, setState] = useState<{ busy: boolean; message: string | null; error: boolean }>({
    busy: false,
    message: null,
    error: false,
  });
  const current = price.data?.USD ?? null;

  const apply = async (usd: number) => {
    if (!Number.isFinite(usd) || usd <= 0 || usd > 100_000_000) {
      setState({
        busy: false,
        message: 'Enter a price between $0.01 and $100,000,000.',
        error: true,
      });
      return;
    }
    setState({ busy: true, message: null, error: false });
    try {
      const set = await setDevnetPrice(Math.round(usd * 100) / 100);
      queryClient.setQueryData(bitcoinPriceQueryOptions.queryKey, set);
      void queryClient.invalidateQueries({ queryKey: ['price-history'] });
      setValue('');
      setState({
        busy: false,
        message: `BTC price set to ${formatUsdCents(BigInt(Math.round(set.USD * 100)))}.`,
        error: false,
      });
    } catch (err) {
      setState({ busy: false, message: toUserMessage(err), error: true });
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void apply(Number(value.replace(/[$,\s]/g, '')));
  };

  return (
    <form
      className="wallet-picker__devnet devnet-price"
      aria-label="Devnet price"
      onSubmit={submit}
    >
      <p className="devnet-price__now">
        <ChartLine size={14} aria-hidden="true" />
        BTC price{' '}
        <strong className="num">
          {current != null ? formatUsdCents(BigInt(Math.round(current * 100))) : '…'}
        </strong>
      </p>
      <div className="wallet-picker__devnet-actions">
        <label className="sr-only" htmlFor="devnet-price">
          New BTC price in USD
        </label>
        <input
          id="devnet-price"
          className="text-input devnet-price__input"
          inputMode="decimal"
          autoComplete="off"
          placeholder="e.g. 60000"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button
          type="submit"
          className="btn btn--secondary btn--small"
          disabled={state.busy || !value}
        >
          Set price
        </button>
      </div>
      <div className="wallet-picker__devnet-actions" role="group" aria-label="Move the price by">
        {STEPS.map((step) => (
          <button
            key={step}
            type="button"
            className="btn btn--ghost btn--small"
            disabled={state.busy || current == null}
            onClick={() => current != null && void apply(current * (1 + step / 100))}
          >
            {step > 0 ? `+${step}%` : `${step}%`}
          </button>
        ))}
      </div>
      {state.message && (
        <p
          role={state.error ? 'alert' : 'status'}
          className={state.error ? 'field-error' : 'muted'}
        >
          {state.message}
        </p>
      )}
    </form>
  );
}
