// A leader job runs in the one instance that holds its lock (cluster/leadership.ts); what it hears
// on the event bus it subscribes to in every instance, and those subscriptions end with the app.
import type { Job } from '../cluster';

export interface LeaderJob extends Job {
  /** Subscribes to what the job needs in every instance; returns how to unsubscribe each. */
  listen?(): Array<() => unknown>;
}
