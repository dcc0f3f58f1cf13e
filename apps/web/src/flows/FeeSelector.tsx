import type { FeeLabel, FeeOption } from '../protocol-gaps';

/** Slow / Medium / Fast, default Fast (SPEC §3, §9). */
export function FeeSelector(props: {
  options: FeeOption[];
  value: FeeLabel;
  onChange: (label: FeeLabel) => void;
}) {
  return (
    <fieldset className="fees">
      <legend className="field-label">Network fee</legend>
      <div className="fees__options">
        {props.options.map((o) => (
          <label key={o.label} className={`fee ${props.value === o.label ? 'fee--active' : ''}`}>
            <input
              type="radio"
              name="fee"
              value={o.label}
              checked={props.value === o.label}
              onChange={() => props.onChange(o.label)}
            />
            <span className="fee__label">{o.label}</span>
            <span className="fee__rate">{o.fee} sat/vB</span>
            <span className="fee__time">{o.time}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
