/** The animated welcome scene: pure SVG and CSS, so it costs no script at runtime. */
export default function WelcomeScene() {
  return (
    <svg className="scene" viewBox="0 0 320 320" role="img" aria-label="A Bitcoin vault">
      <defs>
        <radialGradient id="scene-glow" cx="50%" cy="50%" r="50%">
          <stop offset="0%" stopColor="#f7931a" stopOpacity="0.45" />
          <stop offset="100%" stopColor="#f7931a" stopOpacity="0" />
        </radialGradient>
      </defs>
      <circle cx="160" cy="160" r="150" fill="url(#scene-glow)" className="scene__pulse" />
      <g className="scene__orbit">
        <circle cx="160" cy="40" r="8" fill="#f7931a" />
        <circle cx="280" cy="160" r="5" fill="#4ade80" />
        <circle cx="60" cy="240" r="6" fill="#60a5fa" />
      </g>
      <rect
        x="95"
        y="95"
        width="130"
        height="130"
        rx="22"
        fill="#161b22"
        stroke="#f7931a"
        strokeWidth="3"
      />
      <circle cx="160" cy="160" r="34" fill="none" stroke="#f7931a" strokeWidth="3" />
      <g className="scene__dial">
        <line
          x1="160"
          y1="160"
          x2="160"
          y2="132"
          stroke="#f7931a"
          strokeWidth="4"
          strokeLinecap="round"
        />
      </g>
      <text x="160" y="262" textAnchor="middle" fill="#8b949e" fontSize="14">
        BTC → UNIT
      </text>
    </svg>
  );
}
