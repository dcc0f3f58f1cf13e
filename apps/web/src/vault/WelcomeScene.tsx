/**
 * The welcome scene (SPEC §2 state 1 '3D scene'): an isometric vault, Bitcoin going in on one side
 * and UNIT coming out on the other, drawn in SVG with CSS motion. It costs no script at runtime and
 * no request; under prefers-reduced-motion it stands still.
 */

// Isometric planes: x runs along the block's edges (30° slopes), y straight down.
const RIGHT_FACE = 'matrix(1 -0.5774 0 1 160 190)';
const LEFT_FACE = 'matrix(1 0.5774 0 1 70 138)';

function Coin(props: { x: number; y: number; fill: string; edge: string; glyph: string }) {
  const { x, y } = props;
  return (
    <g transform={`translate(${x} ${y})`}>
      <path d="M-24 0v7a24 9 0 0 0 48 0V0z" fill={props.edge} />
      <ellipse rx="24" ry="9" fill={props.fill} />
      <ellipse rx="17" ry="6" fill="none" stroke={props.edge} strokeWidth="1.5" />
      {/* Bitcoin's B with its two strokes, drawn: the latin font subset has no ₿ */}
      {props.glyph === 'B' && (
        <path
          d="M-1.5 -5.2v1.4M1.5 -5.2v1.4M-1.5 3.8v1.4M1.5 3.8v1.4"
          stroke={props.edge}
          strokeWidth="1.2"
          transform="scale(1 0.62)"
        />
      )}
      <text
        y="3.5"
        textAnchor="middle"
        fontSize="10"
        fontWeight="700"
        fill={props.edge}
        transform="scale(1 0.62)"
      >
        {props.glyph}
      </text>
    </g>
  );
}

export default function WelcomeScene() {
  return (
    <svg
      className="scene"
      viewBox="0 0 320 320"
      role="img"
      aria-label="A vault taking in Bitcoin and giving out UNIT"
    >
      <defs>
        <radialGradient id="scene-glow" cx="50%" cy="55%" r="50%">
          <stop offset="0%" stopColor="#f7931a" stopOpacity="0.35" />
          <stop offset="100%" stopColor="#f7931a" stopOpacity="0" />
        </radialGradient>
        <linearGradient id="scene-top" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#2c3340" />
          <stop offset="1" stopColor="#202632" />
        </linearGradient>
        <linearGradient id="scene-left" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#1a1f28" />
          <stop offset="1" stopColor="#12161d" />
        </linearGradient>
        <linearGradient id="scene-right" x1="0" y1="0" x2="0" y2="1">
          <stop offset="0" stopColor="#232a36" />
          <stop offset="1" stopColor="#171b23" />
        </linearGradient>
      </defs>

      <circle cx="160" cy="175" r="150" fill="url(#scene-glow)" className="scene__pulse" />
      {/* the floor: an isometric tile with the orbit of what flows through */}
      <ellipse cx="160" cy="262" rx="128" ry="36" fill="none" stroke="#262c37" />
      <ellipse
        cx="160"
        cy="262"
        rx="104"
        ry="28"
        fill="none"
        stroke="#3a4250"
        strokeDasharray="3 7"
        className="scene__flow"
      />
      <ellipse cx="160" cy="262" rx="78" ry="20" fill="#0b0e13" opacity="0.8" />

      <g className="scene__float">
        {/* the vault: a block with its door on the right face */}
        <path d="M160 86 250 138 160 190 70 138z" fill="url(#scene-top)" />
        <path d="M70 138 160 190v86L70 224z" fill="url(#scene-left)" />
        <path d="M160 190 250 138v86l-90 52z" fill="url(#scene-right)" />
        <path
          d="M160 86 250 138v86l-90 52-90-52v-86z M70 138l90 52 90-52 M160 190v86"
          fill="none"
          stroke="#f7931a"
          strokeOpacity="0.55"
          strokeWidth="1.5"
          strokeLinejoin="round"
        />
        <g transform={RIGHT_FACE}>
          <rect x="14" y="12" width="62" height="62" rx="8" fill="#12161d" stroke="#3a4250" />
          <circle cx="45" cy="43" r="18" fill="none" stroke="#f7931a" strokeWidth="3" />
          <g className="scene__dial">
            <path d="M45 29v28M31 43h28" stroke="#f7931a" strokeWidth="2.5" strokeLinecap="round" />
          </g>
          <circle cx="45" cy="43" r="4" fill="#f7931a" />
        </g>
        <g transform={LEFT_FACE}>
          {/* the health gauge on the left face: red, yellow, green */}
          <path d="M22 60a23 23 0 0 1 14-21" stroke="#f2545b" strokeWidth="5" fill="none" />
          <path d="M38 38a23 23 0 0 1 14 0" stroke="#f5c451" strokeWidth="5" fill="none" />
          <path d="M54 39a23 23 0 0 1 14 21" stroke="#3ecf8e" strokeWidth="5" fill="none" />
          <path d="M45 60 58 46" stroke="#e6e9ef" strokeWidth="2.5" strokeLinecap="round" />
        </g>
        <path d="M160 86 250 138" stroke="#ffa94d" strokeOpacity="0.8" strokeWidth="2" />
      </g>

      {/* Bitcoin in, on the left; UNIT out, on the right */}
      <g className="scene__coin scene__coin--in">
        <Coin x={48} y={236} fill="#f7931a" edge="#b86a0c" glyph="B" />
        <Coin x={48} y={222} fill="#ffa94d" edge="#b86a0c" glyph="B" />
      </g>
      <g className="scene__coin scene__coin--out">
        <Coin x={274} y={244} fill="#3ecf8e" edge="#1f7f55" glyph="U" />
        <Coin x={274} y={230} fill="#6ee0ab" edge="#1f7f55" glyph="U" />
        <Coin x={274} y={216} fill="#3ecf8e" edge="#1f7f55" glyph="U" />
      </g>
      <g className="scene__sparks" fill="#f7931a">
        <circle cx="64" cy="92" r="3" />
        <circle cx="262" cy="78" r="2" fill="#60a5fa" />
        <circle cx="286" cy="150" r="2.5" fill="#3ecf8e" />
        <circle cx="34" cy="160" r="2" fill="#60a5fa" />
      </g>
    </svg>
  );
}
