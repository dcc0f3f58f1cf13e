// Step 3 of /exit: the owner's key, where the vault goes and the fee rate; the exit is built against
// the chain's height read again at that moment (refused before its height, with the blocks left),
// signed by this browser's devnet wallet or by any wallet through a PSBT, and sent to the esplora.
import {
  useEffect,
  useId,
  useRef,
  useState,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
} from 'react';
import { hex } from '@scure/base';
import { equalBytes, pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  EXIT_MAX_FEE_RATE,
  feeRateAboveClaim,
  planExit,
  type ExitEsplora,
  type ExitPlan,
  type VaultExitFacts,
} from '@unit/bitcoin';
import {
  devnetVaultKey,
  exitPsbtBase64,
  finishFromSignedPsbt,
  signWithDevnetKey,
} from './exit-signing';

/** A vault read from the esplora the owner typed. */
export interface Read {
  chain: ExitEsplora;
  facts: VaultExitFacts;
  /** when the chain was read, for the date the exit opens */
  at: number;
}

const message = (error: unknown) =>
  error instanceof Error ? error.message : 'Something went wrong: try again.';

const KEY_HEX = /^[0-9a-fA-F]{64}$/;

/** A labelled text input with its hint below, the hint read as the input's description. */
export function ExitInput({
  label,
  hint,
  value,
  onChange,
  ...input
}: {
  label: string;
  hint: ReactNode;
  value: string;
  onChange: (value: string) => void;
} & Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'value' | 'onChange'>) {
  const id = useId();
  return (
    <div className="exit__field">
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <input
        {...input}
        id={id}
        aria-describedby={`${id}-hint`}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      <span id={`${id}-hint`} className="field-hint">
        {hint}
      </span>
    </div>
  );
}

function PsbtSigning({
  plan,
  busy,
  onSend,
}: {
  plan: ExitPlan;
  busy: boolean;
  onSend: (sign: () => { hex: string }) => void;
}) {
  const [signedPsbt, setSignedPsbt] = useState('');
  return (
    <details className="exit__psbt">
      <summary>Sign with another wallet (PSBT)</summary>
      <label className="exit__field">
        <span className="field-label">PSBT for your wallet (base64)</span>
        <textarea
          className="text-input exit__mono"
          readOnly
          value={exitPsbtBase64(plan)}
          rows={4}
        />
      </label>
      <label className="exit__field">
        <span className="field-label">Signed PSBT from your wallet</span>
        <textarea
          className="text-input exit__mono"
          value={signedPsbt}
          onChange={(e) => setSignedPsbt(e.target.value)}
          rows={4}
          spellCheck={false}
        />
      </label>
      <button
        type="button"
        className="btn btn--secondary"
        disabled={busy || !signedPsbt.trim()}
        onClick={() => onSend(() => finishFromSignedPsbt(plan, signedPsbt))}
      >
        Send the signed exit
      </button>
    </details>
  );
}

/** Says when the exit built would not replace the claim waiting for a block, and what would. */
function ClaimWarning({
  claim,
  plan,
  feeRate,
}: {
  claim: VaultExitFacts['pendingClaim'];
  plan: ExitPlan;
  feeRate: number;
}) {
  const least = claim ? feeRateAboveClaim(claim, plan.vsize) : null;
  if (least === null || feeRate >= least) return null;
  return (
    <p role="alert" className="exit__error">
      At {feeRate} sat/vB this exit does not replace the claim waiting for a block, and the chain
      would keep the claim: set the fee rate to {least} sat/vB or more and build it again.
    </p>
  );
}

export function ExitBuild({ read, onTip }: { read: Read; onTip: (tipHeight: number) => void }) {
  const devnetKey = devnetVaultKey();
  const devnetPub = devnetKey ? pubSchnorr(devnetKey) : null;
  const known = read.facts.openingKey ?? devnetPub;
  const [pubkey, setPubkey] = useState(known ? hex.encode(known) : '');
  const [to, setTo] = useState('');
  // A claim waiting for a block is replaced only by a higher fee rate: the form starts above it.
  const claim = read.facts.pendingClaim;
  const [feeRate, setFeeRate] = useState(
    String(claim?.feeRate != null ? Math.floor(claim.feeRate) + 1 : 2),
  );
  const [plan, setPlan] = useState<ExitPlan | null>(null);
  const [busy, setBusy] = useState<'building' | 'sending' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const planRef = useRef<HTMLParagraphElement>(null);
  const sentRef = useRef<HTMLParagraphElement>(null);
  useEffect(() => planRef.current?.focus(), [plan]);
  useEffect(() => sentRef.current?.focus(), [sent]);
  const term = read.facts.record.term;
  if (!term) return null;
  const edit = (set: (value: string) => void) => (value: string) => {
    set(value);
    setPlan(null);
  };
  const build = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setPlan(null);
    setBusy('building');
    try {
      if (!KEY_HEX.test(pubkey.trim()))
        throw new Error(
          'The vault key must be 64 hexadecimal characters (its x-only public key): copy it from the wallet that holds the vault.',
        );
      const tipHeight = await read.chain.tipHeight();
      onTip(tipHeight);
      setPlan(
        planExit({
          vaultPubkey: hex.decode(pubkey.trim().toLowerCase()),
          exitHeight: term.exitHeight,
          exitBranch: term.exitBranch,
          utxo: read.facts.utxo,
          toAddress: to,
          feeRate: feeRate.trim() === '' ? Number.NaN : Number(feeRate),
          tipHeight,
          network: read.facts.network,
        }),
      );
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  };
  const send = async (sign: () => { hex: string }) => {
    setError(null);
    setBusy('sending');
    try {
      setSent((await read.chain.broadcast(sign().hex)).trim());
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(null);
    }
  };
  const devnetSigns =
    devnetKey && devnetPub && plan && equalBytes(devnetPub, plan.proof.script.slice(-33, -1));
  return (
    <section className="card exit__section" aria-labelledby="exit-build-heading">
      <h2 id="exit-build-heading">3. Build, sign and send the exit</h2>
      <form className="exit__form" onSubmit={(e) => void build(e)} noValidate>
        <ExitInput
          label="Vault key (x-only public key, 64 hex characters)"
          hint={
            read.facts.openingKey
              ? "Filled in from the vault's opening on the chain."
              : devnetPub
                ? "Filled in from this browser's devnet wallet."
                : 'Your wallet shows it as the vault key; the exit checks it against the vault on the chain.'
          }
          className="text-input exit__mono"
          value={pubkey}
          onChange={edit(setPubkey)}
          autoComplete="off"
          spellCheck={false}
        />
        <ExitInput
          label="Send the whole vault to"
          hint={`An address of ${read.facts.networkName}, the network the vault is on.`}
          className="text-input exit__mono"
          value={to}
          onChange={edit(setTo)}
          autoComplete="off"
          spellCheck={false}
        />
        <ExitInput
          label="Fee rate (sat/vB)"
          hint={`A whole number from 1 to ${EXIT_MAX_FEE_RATE.toLocaleString('en-US')}: check the esplora's fee estimates.`}
          className="text-input exit__fee"
          value={feeRate}
          inputMode="numeric"
          onChange={edit(setFeeRate)}
          autoComplete="off"
        />
        <button
          type="submit"
          className="btn btn--primary"
          disabled={busy !== null || sent !== null}
        >
          {busy === 'building' ? 'Checking the chain…' : 'Build the exit'}
        </button>
      </form>
      {plan && !sent && (
        <div className="exit__plan">
          <p ref={planRef} tabIndex={-1} className="exit__summary">
            The exit sends {plan.sendSats.toLocaleString('en-US')} sats to {to.trim()}; the fee is{' '}
            {plan.feeSats.toLocaleString('en-US')} sats ({plan.vsize} vB at {feeRate.trim()}{' '}
            sat/vB). Nothing is signed yet.
          </p>
          <ClaimWarning claim={claim} plan={plan} feeRate={Number(feeRate)} />
          {devnetSigns && (
            <button
              type="button"
              className="btn btn--primary"
              disabled={busy !== null}
              onClick={() => void send(() => signWithDevnetKey(plan, devnetKey))}
            >
              {busy === 'sending' ? 'Sending…' : "Sign with this browser's devnet wallet and send"}
            </button>
          )}
          <PsbtSigning plan={plan} busy={busy !== null} onSend={(sign) => void send(sign)} />
        </div>
      )}
      {sent && (
        <p ref={sentRef} tabIndex={-1} role="status" className="exit__sent">
          The exit was sent to the chain: transaction <span className="exit__mono">{sent}</span>.
          The vault is yours once a block confirms it: read the vault again then, and the chain
          shows it spent.
        </p>
      )}
      {error && (
        <p role="alert" className="exit__error">
          {error}
        </p>
      )}
    </section>
  );
}
