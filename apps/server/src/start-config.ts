// The configuration `npm start` runs with, checked whole: the environment's settings (config.ts, every
// problem at once), the devnet's default guardian network, and an existing local network's size.
// main.ts starts with it, and `npm start` runs check-config.ts first, so a bad configuration is
// listed before the web app's build rather than after it.
import { loadConfig, type ServerConfig } from './config';
import { checkLocalGuardianSet } from './network-client/local-network';

/** `npm start` on the devnet runs the local network unless GUARDIAN_NETWORK says otherwise. */
export function withDevnetGuardians(config: ServerConfig, env: NodeJS.ProcessEnv): ServerConfig {
  if (config.network !== 'devnet' || env.GUARDIAN_NETWORK?.trim()) return config;
  return { ...config, guardianNetwork: { ...config.guardianNetwork, mode: 'local' } };
}

/** The configuration of a start, or a ConfigError listing every problem. */
export function startConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const config = withDevnetGuardians(loadConfig(env), env);
  // GUARDIAN_N/GUARDIAN_T against the network's existing key (nothing before its first start).
  if (config.guardianNetwork.mode === 'local') checkLocalGuardianSet(config);
  return config;
}
