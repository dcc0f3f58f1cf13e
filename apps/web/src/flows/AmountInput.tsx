import { useId, useState } from 'react';
import { Slider } from '@base-ui/react/slider';
import {
  CONTENT,
  BTC_DECIMALS,
  USD_DECIMALS,
  UNIT_DECIMALS,
  avoidDustChange,
  btcStringToSats,
  isKnownPrice,
  maximumUnitMessage,
  sanitizeAmountInput,
  sats,
  satsToBtcString,
  satsValueUsdCents,
  sliderAmount,
  sliderPercent,
  unitCents,
  unitStringToCents,
  usdCentsToSats,
  usdStringToCents,
  type PriceInput,
} from '@unit/protocol';
import { unitCentsToInputText, usdCentsToInputText } from '../ui/format';

export type AmountMode = 'BTC' | 'USD' | 'UNIT';

export interface AmountValue {
  text: string;
  mode: AmountMode;
}

/** The integer amount a text stands for: sats for BTC/USD, hundredths for UNIT. */
export function amountOf(value: AmountValue, priceUsd: PriceInput): bigint {
  if (value.mode === 'BTC') return btcStringToSats(value.text) ?? 0n;
  if (value.mode === 'UNIT') return unitStringToCents(value.text) ?? 0n;
  return usdCentsToSats(usdStringToCents(value.text) ?? 0n, priceUsd) ?? 0n;
}

/** The text of an integer amount in a mode. */
export function textOf(amount: bigint, mode: AmountMode, priceUsd: PriceInput): string {
  if (mode === 'BTC') return satsToBtcString(amount);
  if (mode === 'UNIT') return unitCentsToInputText(amount);
  const cents = satsValueUsdCents(amount, priceUsd);
  return cents == null ? '' : usdCentsToInputText(cents);
}

/**
 * Amount field with slider (percent of the maximum), Max, and for BTC a BTC/USD toggle (SPEC §5).
 * The caller owns validation; this component only sanitises, clamps and converts.
 */
export function AmountInput(props: {
  label: string;
  value: AmountValue;
  onChange: (value: AmountValue) => void;
  max: bigint;
  /** above this the value is refused with a message instead of clamped (BTC: the balance) */
  available: bigint;
  priceUsd: PriceInput;
  intDigits: { btc: number; unit: number; usd: number };
  error: string | null;
  hint?: string;
  /**
   * BTC amounts: an amount within this many sats below the maximum is reduced when the field is
   * left, so the form shows what is sent (SPEC §5: reduced to avoid dust change).
   */
  dustLimit?: bigint;
  /**
   * Replaces Max (and the slider reaching 100%): the caller works the maximum out itself (SPEC §5:
   * a max deposit is refined using the wallet's UTXOs) and sets the value.
   */
  onMax?: () => void;
  /** while the caller works the maximum out */
  maxBusy?: boolean;
}) {
  const id = useId();
  const { value, max, priceUsd } = props;
  const amount = amountOf(value, priceUsd);
  const decimals =
    value.mode === 'BTC' ? BTC_DECIMALS : value.mode === 'UNIT' ? UNIT_DECIMALS : USD_DECIMALS;
  const intCap =
    value.mode === 'BTC'
      ? props.intDigits.btc
      : value.mode === 'UNIT'
        ? props.intDigits.unit
        : props.intDigits.usd;
  const percent = sliderPercent(amount, max);
  // SPEC §5: UNIT typed above the maximum says 'Maximum value cannot exceed {n} UNIT', then is
  // clamped; the message stays until the next keystroke that is within the maximum.
  const [clampedAt, setClampedAt] = useState<bigint | null>(null);
  const clampMessage =
    value.mode === 'UNIT' && clampedAt != null ? maximumUnitMessage(unitCents(clampedAt)) : null;

  const setAmount = (next: bigint, mode = value.mode) =>
    props.onChange({ mode, text: next > 0n ? textOf(next, mode, priceUsd) : '' });

  const onType = (raw: string) => {
    const text = sanitizeAmountInput(raw, { decimals, intDigits: intCap });
    const typed = amountOf({ text, mode: value.mode }, priceUsd);
    // SPEC §5: a value above the maximum is clamped; above what is available it is refused.
    if (value.mode === 'UNIT' && typed > max) {
      setClampedAt(max);
      setAmount(max);
      return;
    }
    setClampedAt(null);
    if (typed > max && typed <= props.available) setAmount(max);
    else props.onChange({ ...value, text });
  };

  const onLeave = () => {
    if (props.dustLimit === undefined || value.mode === 'UNIT' || amount <= 0n) return;
    const reduced = avoidDustChange(sats(amount), sats(max), sats(props.dustLimit));
    if (reduced !== amount) setAmount(reduced);
  };

  const chooseMax = () => {
    setClampedAt(null);
    if (props.onMax) props.onMax();
    else setAmount(max);
  };

  return (
    <div className="amount">
      <div className="amount__row">
        <label htmlFor={id} className="field-label">
          {props.label}
        </label>
        {value.mode !== 'UNIT' && (
          <div className="segmented" role="group" aria-label="Amount currency">
            {(['BTC', 'USD'] as const).map((mode) => (
              <button
                key={mode}
                type="button"
                aria-pressed={value.mode === mode}
                disabled={mode === 'USD' && !isKnownPrice(priceUsd)}
                onClick={() => setAmount(amount, mode)}
              >
                {mode}
              </button>
            ))}
          </div>
        )}
      </div>
      <div className={`amount__field ${props.error ? 'amount__field--error' : ''}`}>
        <input
          id={id}
          inputMode="decimal"
          autoComplete="off"
          placeholder="0.00"
          value={value.mode === 'UNIT' ? groupForDisplay(value.text) : value.text}
          aria-invalid={props.error != null}
          aria-describedby={(props.error ?? clampMessage) ? `${id}-error` : undefined}
          onChange={(e) => onType(e.target.value)}
          onBlur={onLeave}
        />
        <span className="amount__unit">{value.mode}</span>
        <button
          type="button"
          className="btn btn--small"
          aria-busy={props.maxBusy || undefined}
          disabled={props.maxBusy}
          onClick={chooseMax}
        >
          {CONTENT.actionDrawer.max}
        </button>
      </div>
      <Slider.Root
        value={percent}
        onValueChange={(v) => {
          const next = Array.isArray(v) ? (v[0] ?? 0) : v;
          // Reaching 100% is Max: the thumb follows at once, the caller then refines the value; a
          // drag that stays at 100% asks for it once.
          if (next >= 100 && props.onMax) {
            if (percent < 100 && !props.maxBusy) {
              setAmount(max);
              props.onMax();
            }
          } else setAmount(sliderAmount(max, next));
          setClampedAt(null);
        }}
        className="slider"
      >
        <Slider.Control className="slider__control">
          <Slider.Track className="slider__track">
            <Slider.Indicator className="slider__indicator" />
            <Slider.Thumb
              className="slider__thumb"
              aria-label={`${props.label} percent of maximum`}
            />
          </Slider.Track>
        </Slider.Control>
      </Slider.Root>
      {(props.error ?? clampMessage) && (
        <p id={`${id}-error`} className={props.error ? 'field-error' : 'field-notice'} role="alert">
          {props.error ?? clampMessage}
        </p>
      )}
      {/* The hint stays beside an error: it says what the field accepts. */}
      {props.hint && <p className="field-hint">{props.hint}</p>}
    </div>
  );
}

// SPEC §5: UNIT shows thousands separators while typing.
function groupForDisplay(text: string): string {
  const [int = '', frac] = text.split('.');
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? grouped : `${grouped}.${frac}`;
}
