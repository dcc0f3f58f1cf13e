// The oracle's key lives in a file (ORACLE_KEY_FILE): made at first devnet start
// with mode 0600, refused when others can read it, and refused when it is not the key the
// database's vaults were opened with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config';
import { createOracleKeyFile } from '../../src/oracle/keys';
import { startTestApp } from '../support';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'unit-oracle-file-'));
const keyFile = path.join(dataDir, 'oracle.key');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('ORACLE_KEY_FILE', () => {
  it('is made at first devnet start, owner-only, and read back on the next', async () => {
    const first = await startTestApp({ DATA_DIR: dataDir });
    const pubkey = first.oracle.pubkey;
    await first.stop();
    expect((fs.statSync(keyFile).mode & 0o777).toString(8)).toBe('600');
    const text = fs.readFileSync(keyFile, 'utf8');
    expect(JSON.parse(text)).toEqual({
      oracle_key: expect.stringMatching(/^[0-9a-f]{64}$/),
      oracle_secret: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const second = await startTestApp({ DATA_DIR: dataDir });
    expect(second.oracle.pubkey).toBe(pubkey);
    await second.stop();
  });

  it('refuses a file others can read, and another key than the database knows', async () => {
    fs.chmodSync(keyFile, 0o640);
    await expect(startTestApp({ DATA_DIR: dataDir })).rejects.toThrow(
      /ORACLE_KEY_FILE .* can be read by others \(mode 640\); chmod 600 it/,
    );
    fs.chmodSync(keyFile, 0o600);
    const other = path.join(dataDir, 'other.key');
    createOracleKeyFile(other);
    const refusal = startTestApp({ DATA_DIR: dataDir, ORACLE_KEY_FILE: other });
    await expect(refusal).rejects.toBeInstanceOf(ConfigError);
    await expect(refusal).rejects.toThrow(/but this database's vaults were opened with/);
  });
});
