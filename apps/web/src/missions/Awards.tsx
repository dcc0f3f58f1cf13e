// SPEC §3 roles and badges, each earned or not, with its icon.
import { useId } from 'react';
import {
  Award,
  Crown,
  Flame,
  Gauge,
  Gem,
  Hash,
  Lock,
  Medal,
  Rocket,
  ScrollText,
  Sparkles,
  Sprout,
  Sun,
  TrendingUp,
  Trophy,
  Users,
  type LucideIcon,
} from 'lucide-react';
import { type CommunityAwardDto } from '@unit/protocol';

/** SPEC §3 roles and badges: each earned or not, with the rule that earns it (server-side). */
export function Awards({ title, awards }: { title: string; awards: CommunityAwardDto[] }) {
  const id = useId();
  const earned = awards.filter((a) => a.earned).length;
  return (
    <section className="card" aria-labelledby={id}>
      <h2 className="card__title" id={id}>
        {title}
      </h2>
      <p className="muted">
        {earned} of {awards.length} earned
      </p>
      <ul className="awards">
        {awards.map((award) => (
          <li key={award.id} className={`award${award.earned ? ' award--earned' : ''}`}>
            <AwardIcon id={award.id} earned={award.earned} />
            <span className="award__title">{award.title}</span>
            <span className="award__state">{award.earned ? 'Earned' : 'Not yet'}</span>
            <span className="award__how muted">{award.how}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/**
 * Each role and badge gets its own mark (they were rows of text), drawn inline from the
 * icon set already in the bundle: nothing is downloaded. An award this page does not know yet gets
 * the generic one.
 */
const AWARD_ICONS: Record<string, LucideIcon> = {
  genesis: Sprout,
  prime: Crown,
  optimizer: Gauge,
  exponent: TrendingUp,
  anomaly: Sparkles,
  boost: Rocket,
  'low-ordinal': Hash,
  'top-ethereum': Gem,
  'top-ordinal': Medal,
  'top-rune': ScrollText,
  'top-solana': Sun,
  'mog-dante': Flame,
  'mog-dante-gold': Trophy,
  referral: Users,
};

function AwardIcon({ id, earned }: { id: string; earned: boolean }) {
  const Icon = AWARD_ICONS[id] ?? Award;
  return (
    <span className={`award__icon${earned ? ' award__icon--earned' : ''}`} aria-hidden="true">
      <Icon size={18} strokeWidth={2} />
      {!earned && <Lock size={10} className="award__lock" />}
    </span>
  );
}
