// `npm start`'s first step: the server's own configuration check (start-config.ts), so a bad
// configuration is listed in a second, before the web app's build. Exit 2 with every problem.
import { ConfigError } from './config';
import { startConfig } from './start-config';

try {
  startConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(2);
}
