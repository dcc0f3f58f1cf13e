// What the browser remembers of the missions area: the missions Start was pressed on (so the
// button reads Verify when the user comes back from the action) per address. The server keeps
// what is done, and the session says who is signed in; this is only where the user left off.
import { useMemo, useSyncExternalStore } from 'react';

const startedKey = (address: string) => `unit.missions.started.${address}`;

const listeners = new Set<() => void>();
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage full or disabled: the button reads Start again next time, nothing worse
  }
  listeners.forEach((l) => l());
}

function parseIds(raw: string | null): ReadonlySet<string> {
  try {
    const value: unknown = raw ? JSON.parse(raw) : [];
    return new Set(Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}

export function useStartedMissions(address: string | null): ReadonlySet<string> {
  const raw = useSyncExternalStore(subscribe, () => (address ? read(startedKey(address)) : null));
  return useMemo(() => parseIds(raw), [raw]);
}

export function markMissionStarted(address: string, missionId: string): void {
  const ids = new Set(parseIds(read(startedKey(address))));
  ids.add(missionId);
  write(startedKey(address), JSON.stringify([...ids]));
}
