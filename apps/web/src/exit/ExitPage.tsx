// /exit: an owner's way out that needs nothing of ours (docs/protocol.md, "Leaving without the
// guardians"). Served with the static web app but rendered outside it: no config, no API call,
// only the esplora URL the owner types. From a vault id or address it shows the vault, when its
// exit opens, and builds the exit for the wallet to sign, then broadcasts it to that esplora.
import { useState, type FormEvent } from 'react';
import { hex } from '@scure/base';
import { pubSchnorr } from '@scure/btc-signer/utils.js';
import {
  describeVaultExit,
  ExitEsplora,
  planExit,
  readVaultExit,
  type ExitPlan,
  type VaultExitFacts,
} from '@unit/bitcoin';
import {
  devnetVaultKey,
  exitPsbtBase64,
  finishFromSignedPsbt,
  signWithDevnetKey,
} from './exit-signing';
import '../styles/tokens.css';
import '../styles/ui.css';
import './exit.css';

const message = (error: unknown) =>
  error instanceof Error ? error.message : 'Something went wrong: try again.';

interface Read {
  chain: ExitEsplora;
  facts: VaultExitFacts;
}

function ReadForm({ onRead }: { onRead: (read: Read) => void }) {
  const [chainUrl, setChainUrl] = useState('');
  const [vault, setVault] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const chain = new ExitEsplora(chainUrl);
      onRead({ chain, facts: await readVaultExit(chain, vault) });
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card exit__form" onSubmit={(e) => void submit(e)}>
      <label>
        Esplora URL of the chain
        <input
          value={chainUrl}
          onChange={(e) => setChainUrl(e.target.value)}
          placeholder="https://mempool.space/api"
          required
        />
      </label>
      <label>
        Vault id or vault address
        <input value={vault} onChange={(e) => setVault(e.target.value)} required />
      </label>
      <button type="submit" className="btn" disabled={busy}>
        {busy ? 'Reading the chain…' : 'Read the vault'}
      </button>
      {error && (
        <p role="alert" className="exit__error">
          {error}
        </p>
      )}
    </form>
  );
}

function BuildForm({ read }: { read: Read }) {
  const devnetKey = devnetVaultKey();
  const [pubkey, setPubkey] = useState(devnetKey ? hex.encode(pubSchnorr(devnetKey)) : '');
  const [to, setTo] = useState('');
  const [feeRate, setFeeRate] = useState('2');
  const [plan, setPlan] = useState<ExitPlan | null>(null);
  const [signedPsbt, setSignedPsbt] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const term = read.facts.record.term;
  if (!term) return null;
  const build = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      if (!/^[0-9a-fA-F]{64}$/.test(pubkey.trim()))
        throw new Error(
          'The vault key must be 64 hex characters (its x-only public key): copy it from the wallet.',
        );
      setPlan(
        planExit({
          vaultPubkey: hex.decode(pubkey.trim().toLowerCase()),
          exitHeight: term.exitHeight,
          exitBranch: term.exitBranch,
          utxo: read.facts.utxo,
          toAddress: to.trim(),
          feeRate: Number(feeRate),
          tipHeight: read.facts.tipHeight,
          network: read.facts.network,
        }),
      );
    } catch (e) {
      setPlan(null);
      setError(message(e));
    }
  };
  const send = async (sign: () => { hex: string }) => {
    setError(null);
    try {
      setSent((await read.chain.broadcast(sign().hex)).trim());
    } catch (e) {
      setError(message(e));
    }
  };
  return (
    <form className="card exit__form" onSubmit={build}>
      <label>
        Vault key (x-only, hex)
        <input value={pubkey} onChange={(e) => setPubkey(e.target.value)} required />
      </label>
      <label>
        Send the vault to
        <input value={to} onChange={(e) => setTo(e.target.value)} required />
      </label>
      <label>
        Fee rate, sat/vB
        <input
          value={feeRate}
          inputMode="numeric"
          onChange={(e) => setFeeRate(e.target.value)}
          required
        />
      </label>
      <button type="submit" className="btn">
        Build the exit
      </button>
      {plan && !sent && (
        <div className="exit__plan">
          <p>
            {plan.sendSats.toString()} sats to {to.trim()}, fee {plan.feeSats.toString()} sats (
            {plan.vsize} vB).
          </p>
          {devnetKey && (
            <button
              type="button"
              className="btn"
              onClick={() => void send(() => signWithDevnetKey(plan, devnetKey))}
            >
              Sign with this browser&apos;s devnet wallet and send
            </button>
          )}
          <label>
            PSBT for your wallet
            <textarea readOnly value={exitPsbtBase64(plan)} rows={4} />
          </label>
          <label>
            Signed PSBT from your wallet
            <textarea value={signedPsbt} onChange={(e) => setSignedPsbt(e.target.value)} rows={4} />
          </label>
          <button
            type="button"
            className="btn"
            disabled={!signedPsbt.trim()}
            onClick={() => void send(() => finishFromSignedPsbt(plan, signedPsbt))}
          >
            Send the signed exit
          </button>
        </div>
      )}
      {sent && <p role="status">The exit was sent: transaction {sent}.</p>}
      {error && (
        <p role="alert" className="exit__error">
          {error}
        </p>
      )}
    </form>
  );
}

export function ExitPage() {
  const [read, setRead] = useState<Read | null>(null);
  return (
    <main className="exit">
      <h1>Leave a vault without us</h1>
      <p>
        This page talks only to the chain you name and to your wallet. It reads your vault, shows
        when its exit opens, and builds the transaction that returns the whole vault to you.
      </p>
      <ReadForm onRead={setRead} />
      {read && (
        <>
          <pre className="card exit__facts" aria-label="The vault on the chain">
            {describeVaultExit(read.facts).join('\n')}
          </pre>
          <BuildForm key={`${read.facts.utxo.txid}:${read.facts.utxo.vout}`} read={read} />
        </>
      )}
    </main>
  );
}
