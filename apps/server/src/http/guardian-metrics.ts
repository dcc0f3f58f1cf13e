// The guardian network's figure for /metrics: how many of the set's guardians answered the last
// price round with a fresh, agreeing price (oracle/quorum.ts), beside how many the quorum needs.
// Read at scrape time under the scrape's time-out; nothing is exported off the network.
import { Gauge, type Registry } from 'prom-client';
import type { GuardiansOnline } from '../oracle/quorum';
import { CHECK_TIMEOUT_MS, withTimeout } from './health';

export interface GuardianReach {
  guardiansOnline(): Promise<GuardiansOnline | null>;
}

export function registerGuardianGauges(
  registry: Registry,
  source: () => GuardianReach | null | undefined,
): void {
  const reach = async () => {
    const guardians = source();
    if (!guardians) return null;
    return withTimeout(guardians.guardiansOnline(), CHECK_TIMEOUT_MS).catch(() => null);
  };
  new Gauge({
    name: 'unit_guardians_online',
    help: 'Guardians of the set that answered the last price round with a fresh, agreeing price (the quorum needs unit_guardians_needed)',
    labelNames: ['set'],
    registers: [registry],
    async collect() {
      const r = await reach();
      this.reset();
      if (r) this.set({ set: String(r.version) }, r.online);
    },
  });
  new Gauge({
    name: 'unit_guardians_needed',
    help: "The set's threshold t: guardians that must answer with a fresh price for a price quorum",
    labelNames: ['set'],
    registers: [registry],
    async collect() {
      const r = await reach();
      this.reset();
      if (r) this.set({ set: String(r.version) }, r.t);
    },
  });
}
