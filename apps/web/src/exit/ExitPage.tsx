// /exit: an owner's way out that needs nothing of ours (docs/protocol.md, "Leaving without the
// guardians"). Served with the static web app but rendered outside it: no config, no API call,
// only the esplora URL the owner types. From a vault id or address it shows the vault, when its
// exit opens, and builds the exit for the wallet to sign, then broadcasts it to that esplora.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ExitEsplora, readVaultExit } from '@unit/bitcoin';
import { ExitBuild, ExitInput, type Read } from './ExitBuild';
import { ExitFacts } from './ExitFacts';
import '../styles/tokens.css';
import '../styles/ui.css';
import './exit.css';

const message = (error: unknown) =>
  error instanceof Error ? error.message : 'Something went wrong: try again.';

function ReadForm({ onRead }: { onRead: (read: Read | null) => void }) {
  const [chainUrl, setChainUrl] = useState('');
  const [vault, setVault] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!chainUrl.trim() || !vault.trim()) {
      setError(
        !chainUrl.trim()
          ? 'Type the esplora URL of the chain the vault is on, such as https://mempool.space/api.'
          : 'Type the vault id (the opening transaction) or the vault address.',
      );
      return;
    }
    setBusy(true);
    // What an earlier reading showed is no longer the chain's word.
    onRead(null);
    try {
      const chain = new ExitEsplora(chainUrl.trim());
      onRead({ chain, facts: await readVaultExit(chain, vault), at: Date.now() });
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card exit__section" aria-labelledby="exit-read-heading">
      <h2 id="exit-read-heading">1. Find the vault on the chain</h2>
      <form className="exit__form" onSubmit={(e) => void submit(e)} noValidate aria-busy={busy}>
        <ExitInput
          label="Esplora URL of the chain"
          hint="Any esplora API of the vault's network: yours, or a public one such as mempool.space or blockstream.info."
          className="text-input"
          value={chainUrl}
          onChange={setChainUrl}
          placeholder="https://mempool.space/api"
          inputMode="url"
          autoComplete="url"
          spellCheck={false}
        />
        <ExitInput
          label="Vault id or vault address"
          hint="The vault id is the transaction that opened it (64 hexadecimal characters)."
          className="text-input exit__mono"
          value={vault}
          onChange={setVault}
          autoComplete="off"
          spellCheck={false}
        />
        <button type="submit" className="btn btn--primary" disabled={busy}>
          {busy ? 'Reading the chain…' : 'Read the vault'}
        </button>
        {error && (
          <p role="alert" className="exit__error">
            {error}
          </p>
        )}
      </form>
    </section>
  );
}

export function ExitPage() {
  const [read, setRead] = useState<Read | null>(null);
  const [readings, setReadings] = useState(0);
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = 'Leave a vault without us · UNIT Vault';
  }, []);
  // A new reading moves the focus to what the chain shows, so a screen reader reads it next.
  useEffect(() => {
    if (readings > 0) headingRef.current?.focus();
  }, [readings]);
  const onTip = (tipHeight: number) =>
    setRead((r) => (r ? { ...r, facts: { ...r.facts, tipHeight }, at: Date.now() } : r));
  return (
    <main className="exit">
      <header className="exit__header">
        <h1>Leave a vault without us</h1>
        <p>
          This page talks only to the chain you name and to your wallet: no server of ours, no
          guardian. It reads your vault, shows when its exit opens, and builds the transaction that
          returns the whole vault to you once it is open.
        </p>
      </header>
      <ReadForm
        onRead={(r) => {
          setRead(r);
          if (r) setReadings((n) => n + 1);
        }}
      />
      {read && (
        <>
          <ExitFacts ref={headingRef} facts={read.facts} now={read.at} />
          <ExitBuild
            key={`${read.facts.utxo.txid}:${read.facts.utxo.vout}`}
            read={read}
            onTip={onTip}
          />
        </>
      )}
    </main>
  );
}
