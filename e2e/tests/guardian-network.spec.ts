// The browser journey: the real server runs the embedded 2-of-3 guardian network
// (GUARDIAN_NETWORK=local: three guardian processes, each validating every vault input itself).
// A user opens a vault and borrows, and sees the guardians approve; /network lists them online;
// one guardian is killed (kill -9) mid-journey and the next borrow still completes with the other
// two; /network shows it offline, then online again once `guardian local` restarts it.
import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { test, expect } from '../support/fixtures';
import { connectDevnetWallet, openDrawer, openVault } from '../support/journey';

test.use({ serverEnv: { GUARDIAN_NETWORK: 'local' } });
// One journey, one set of processes: the desktop project only (playwright.config.ts desktopOnly);
// it checks the phone width itself.

interface Proc {
  pid: number;
  ppid: number;
  args: string;
}

/** The processes under `root` (the server: `guardian local`, and the guardians under it). */
function descendants(root: number): Proc[] {
  const all = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const found: Proc[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all)
      if (parents.has(p.ppid) && !parents.has(p.pid)) {
        parents.add(p.pid);
        found.push(p);
        grew = true;
      }
  }
  return found;
}

/**
 * A guardian's process, found by its command line (`cli.ts start --id 2 ...`, or the CLI's bundle
 * in place of cli.ts when the server runs from its own: support/server.ts).
 */
function guardianProcess(root: number, id: number): Proc | undefined {
  return descendants(root).find((p) => new RegExp(`cli\\S* start --id ${id}(\\s|$)`).test(p.args));
}

/** The page does not scroll sideways. */
async function expectNoSideScroll(page: Page) {
  // (polled: after a resize the chart measures its new width on its next frame)
  const { width } = page.viewportSize()!;
  await expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth))
    .toBeLessThanOrEqual(width);
}

/** The pending banner's approvals: "2 of 3 guardians approved" and each guardian's state. */
async function expectApprovals(page: Page, states: Record<string, RegExp>) {
  const banner = page.locator('.banner');
  await expect(banner.getByText(/^[23] of 3 guardians approved$/)).toBeVisible();
  // The list waits behind the banner's Details disclosure.
  const details = banner.getByRole('button', { name: 'Details' });
  if ((await details.getAttribute('aria-expanded')) !== 'true') await details.click();
  const list = banner.getByRole('list', { name: 'Guardians' });
  for (const [name, state] of Object.entries(states))
    await expect(list.getByRole('listitem').filter({ hasText: name })).toHaveText(state);
}

/** Each guardian card's state on /network, in the set's order. */
const cardStates = (page: Page) =>
  page
    .getByRole('list', { name: 'Guardians' })
    .getByRole('listitem')
    .locator('.guardian__state')
    .allInnerTexts();

/** Desktop, then phone width: no sideways scroll, and a screenshot of each. */
async function snapBothWidths(
  page: Page,
  snap: (page: Page, name: string) => Promise<void>,
  name: string,
) {
  await expectNoSideScroll(page);
  await snap(page, name);
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSideScroll(page);
  await snap(page, `${name}-phone`);
  await page.setViewportSize({ width: 1440, height: 900 });
}

test('the guardians approve a borrow, and one killed mid-journey stops nothing', async ({
  page,
  devnet,
  server,
  checkA11y,
  snap,
}) => {
  test.setTimeout(180_000);
  // The server answers /api/health before its guardians are ready: wait for all three.
  await expect
    .poll(
      async () => {
        const res = await page.request.get('/api/network');
        if (!res.ok()) return -1;
        const body = (await res.json()) as { guardians: { online: boolean }[] };
        return body.guardians.filter((g) => g.online).length;
      },
      { timeout: 60_000 },
    )
    .toBe(3);
  const { guardians } = (await (await page.request.get('/api/network')).json()) as {
    guardians: { id: number; name: string }[];
  };
  const nameOf = (id: number) => guardians.find((g) => g.id === id)!.name;
  // Three guardian processes under the server, each named on its command line.
  for (const id of [1, 2, 3])
    expect(guardianProcess(server.pid, id), `guardian ${id}`).toBeTruthy();

  // /network: three guardians, online.
  await page.goto('/network');
  await expect(
    page.getByText('2 of 3 guardians must approve every vault transaction.'),
  ).toBeVisible();
  await expect.poll(() => cardStates(page)).toEqual(['Online', 'Online', 'Online']);
  for (const id of [1, 2, 3])
    await expect(page.getByRole('heading', { level: 2, name: nameOf(id) })).toBeVisible();
  await checkA11y(page);
  await snapBothWidths(page, snap, '70-network-online');

  // A vault, then a borrow: its input is signed by the network, at least two guardians approving.
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Guarded', btc: '0.02', unit: '300' });
  let drawer = await openDrawer(page, 'Borrow');
  await drawer.locator('input[inputmode="decimal"]').first().fill('100');
  await drawer.getByRole('button', { name: 'Borrow', exact: true }).click();
  await expect(page.getByText('Vault Borrow Submitted!').first()).toBeVisible();
  // Submitted: a guardian the first two approvals made unnecessary was not needed, never "waiting".
  const anyState = /approved|not needed/;
  await expectApprovals(page, {
    [nameOf(1)]: anyState,
    [nameOf(2)]: anyState,
    [nameOf(3)]: anyState,
  });
  await expect(page.locator('.banner').getByText(/approved$/)).not.toHaveCount(0);
  await checkA11y(page);
  await snapBothWidths(page, snap, '71-borrow-approvals');
  await devnet.mine(1);
  await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
  await expect(page.getByText('In wallet: 400.00 UNIT')).toBeVisible({ timeout: 30_000 });

  // kill -9 guardian 2. Its supervisor (`guardian local`) restarts a dead guardian within about a
  // second, too soon for anyone to see it offline: the test pauses the supervisor (SIGSTOP) first,
  // so guardian 2 stays down while the user borrows again, and lets it go on (SIGCONT) after.
  const supervisor = descendants(server.pid).find((p) => /cli\S* local(\s|$)/.test(p.args));
  expect(supervisor, 'the guardian local process').toBeTruthy();
  const victim = guardianProcess(server.pid, 2)!;
  process.kill(supervisor!.pid, 'SIGSTOP');
  try {
    process.kill(victim.pid, 'SIGKILL');
    await expect.poll(() => guardianProcess(server.pid, 2)?.pid ?? null).toBeNull();

    // The second borrow completes with guardians 1 and 3; guardian 2 is named unreachable.
    drawer = await openDrawer(page, 'Borrow');
    await drawer.locator('input[inputmode="decimal"]').first().fill('100');
    await drawer.getByRole('button', { name: 'Borrow', exact: true }).click();
    await expect(page.getByText('Vault Borrow Submitted!').first()).toBeVisible();
    await expectApprovals(page, {
      [nameOf(1)]: /approved/,
      [nameOf(2)]: /unreachable/,
      [nameOf(3)]: /approved/,
    });
    await expect(page.locator('.banner').getByText('2 of 3 guardians approved')).toBeVisible();
    await checkA11y(page);
    await snapBothWidths(page, snap, '72-borrow-one-guardian-down');
    await devnet.mine(1);
    await expect(page.getByText('Finalizing...')).toHaveCount(0, { timeout: 60_000 });
    await expect(page.getByText('In wallet: 500.00 UNIT')).toBeVisible({ timeout: 30_000 });

    // /network: guardian 2 offline, the other two online.
    await page.goto('/network');
    await expect
      .poll(() => cardStates(page), { timeout: 30_000 })
      .toEqual(['Online', 'Offline', 'Online']);
    await expect(page.getByText('2 of 3 guardians', { exact: true })).toBeVisible();
    await checkA11y(page);
    await snapBothWidths(page, snap, '73-network-one-offline');
  } finally {
    process.kill(supervisor!.pid, 'SIGCONT');
  }

  // `guardian local` restarts guardian 2 (a new process), and /network shows it online again.
  await expect
    .poll(() => guardianProcess(server.pid, 2)?.pid ?? null, { timeout: 30_000 })
    .not.toBeNull();
  expect(guardianProcess(server.pid, 2)!.pid).not.toBe(victim.pid);
  await expect
    .poll(() => cardStates(page), { timeout: 40_000 })
    .toEqual(['Online', 'Online', 'Online']);
  await snap(page, '74-network-back-online');
});

test('two guardians stopped: the dashboard says the quorum is lost before any click, and the actions wait', async ({
  page,
  devnet,
  server,
  checkA11y,
  snap,
}) => {
  test.setTimeout(300_000);
  await connectDevnetWallet(page, devnet);
  await openVault(page, devnet, { name: 'Quorum', btc: '0.02', unit: '300' });
  const actions = ['Deposit', 'Withdraw', 'Borrow', 'Repay'];
  const button = (name: string) => page.getByRole('button', { name, exact: true }).first();
  for (const name of actions) await expect(button(name)).toBeEnabled();

  // Guardians 2 and 3 stop answering (SIGSTOP; their supervisor paused so it restarts nothing):
  // one price is left, no quorum, and once the last quorum is a minute old the price is stale.
  const supervisor = descendants(server.pid).find((p) => /cli\S* local(\s|$)/.test(p.args))!;
  const stopped = [2, 3].map((id) => guardianProcess(server.pid, id)!);
  process.kill(supervisor.pid, 'SIGSTOP');
  try {
    for (const g of stopped) process.kill(g.pid, 'SIGSTOP');
    const banner = page.getByTestId('price-paused');
    await expect(banner).toBeVisible({ timeout: 150_000 });
    await expect(banner).toContainText('Vault actions are paused');
    await expect(banner).toContainText(
      /The guardians have no price quorum: too few of them answer with a fresh bitcoin price, so no price newer than \d\d:\d\d can be signed\./,
    );
    const reason =
      'Paused: the guardians have no price quorum. This opens again once they agree on a fresh price.';
    for (const name of actions) {
      await expect(button(name)).toBeDisabled();
      await expect(button(name)).toHaveAccessibleDescription(reason);
    }
    await checkA11y(page);
    await snapBothWidths(page, snap, '75-quorum-lost-paused');
    await page.setViewportSize({ width: 390, height: 844 });
    await expect(banner).toBeVisible();
    await expect(button('Borrow')).toHaveAccessibleDescription(reason);
    await page.setViewportSize({ width: 1440, height: 900 });
  } finally {
    for (const g of stopped) process.kill(g.pid, 'SIGCONT');
    process.kill(supervisor.pid, 'SIGCONT');
  }
  // The guardians answer again: a fresh quorum, and the actions open without a reload.
  await expect(page.getByTestId('price-paused')).toHaveCount(0, { timeout: 90_000 });
  for (const name of actions) await expect(button(name)).toBeEnabled();
});
