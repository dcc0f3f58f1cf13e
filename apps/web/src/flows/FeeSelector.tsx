import type { FeeOption, FeeSpeed } from '@unit/protocol';

/** Slow / Medium / Fast with their SPEC §3 labels, default Fast (SPEC §9). */
export function FeeSelector(props: {
  options: FeeOption[];
  value: FeeSpeed;
  onChange: (speed: FeeSpeed) => void;
}) {
  return (
    <fieldset className="fees">
      <legend className="field-label">Network fee</legend>
      <div className="fees__options">
        {props.options.map((o) => (
          <label key={o.speed} className={`fee ${props.value === o.speed ? 'fee--active' : ''}`}>
            <input
              type="radio"
              name="fee"
              value={o.speed}
              checked={props.value === o.speed}
              onChange={() => props.onChange(o.speed)}
            />
            <span className="fee__label">{o.label}</span>
            <span className="fee__rate">{o.fee} sat/vB</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
