import { useState } from 'react';
import { useNavigate } from 'react-router';
import { CONTENT } from '@unit/protocol';
import { usePosition } from '../api/position';
import { useWallet, WalletPicker } from '../wallet';
import './missions.css';

// SPEC §4 Mission actions: the six action types; query ?action= opens the matching drawer.
export type MissionAction =
  'create-vault' | 'deposit' | 'repay' | 'borrow' | 'withdraw' | 'repossess';
type MissionStatus = 'todo' | 'started' | 'verifying';

const MISSIONS: { id: number; title: string; action: MissionAction }[] = [
  { id: 1, title: 'Open your first vault', action: 'create-vault' },
  { id: 2, title: 'Deposit more BTC', action: 'deposit' },
  { id: 3, title: 'Borrow UNIT', action: 'borrow' },
  { id: 4, title: 'Repay some UNIT', action: 'repay' },
  { id: 5, title: 'Withdraw BTC', action: 'withdraw' },
  { id: 6, title: 'Repossess a liquidated vault', action: 'repossess' },
];

/** SPEC §4: disabled with no user, while pending, or mission 2 with no vault unless create-vault. */
export function missionDisabled(o: {
  hasUser: boolean;
  pending: boolean;
  missionId: number;
  hasVault: boolean;
  action: MissionAction;
}) {
  return (
    !o.hasUser || o.pending || (o.missionId === 2 && !o.hasVault && o.action !== 'create-vault')
  );
}

export const missionButtonLabel = (status: MissionStatus) =>
  status === 'todo'
    ? CONTENT.missions.buttons.start
    : status === 'started'
      ? CONTENT.missions.buttons.verify
      : CONTENT.missions.buttons.inProgress;

export function MissionsPage() {
  const wallet = useWallet();
  const position = usePosition();
  const navigate = useNavigate();
  const [pickerOpen, setPickerOpen] = useState(false);
  const [status, setStatus] = useState<Record<number, MissionStatus>>({});
  const hasUser = wallet.account != null;

  return (
    <div className="missions">
      <section className="card">
        <h1 className="card__title">Missions</h1>
        {!hasUser && (
          <>
            <button type="button" className="btn btn--primary" onClick={() => setPickerOpen(true)}>
              {CONTENT.missions.actionButtons.connectWallet}
            </button>
            <WalletPicker open={pickerOpen} onOpenChange={setPickerOpen} />
          </>
        )}
        <ul className="mission-list">
          {MISSIONS.map((m) => {
            const s = status[m.id] ?? 'todo';
            const disabled =
              s === 'verifying' ||
              missionDisabled({
                hasUser,
                pending: false,
                missionId: m.id,
                hasVault: position.vault != null,
                action: m.action,
              });
            return (
              <li key={m.id} className="mission">
                <span>{m.title}</span>
                <button
                  type="button"
                  className="btn btn--small"
                  disabled={disabled}
                  onClick={() => {
                    if (s === 'todo') {
                      setStatus({ ...status, [m.id]: 'started' });
                      void navigate(
                        m.action === 'repossess' ? '/liquidations' : `/?action=${m.action}`,
                      );
                    } else setStatus({ ...status, [m.id]: 'verifying' });
                  }}
                >
                  {missionButtonLabel(s)}
                </button>
              </li>
            );
          })}
        </ul>
      </section>
      <section className="card">
        <h2 className="card__title">Referral levels</h2>
        <ol className="levels">
          {Object.values(CONTENT.missions.referralLevels).map((level, i) => (
            <li key={level} className={`level level--${i + 1}`}>
              {level}
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
