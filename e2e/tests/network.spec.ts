// The /network page on the real server, at desktop and phone widths, with axe.
// The journeys' server signs alone unless E2E_GUARDIAN_NETWORK=local runs it with the embedded
// 2-of-3 network; the page must read right either way, without sideways scroll.
import { test, expect } from '../support/fixtures';

const LOCAL_NETWORK = process.env.E2E_GUARDIAN_NETWORK === 'local';

test('the network page lists the guardians, or says the server signs alone', async ({
  page,
  checkA11y,
  snap,
}) => {
  await page.goto('/');
  // Reached from the main navigation, where the other pages are.
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Network' })
    .click();
  await expect(page).toHaveURL(/\/network$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Guardian network' })).toBeVisible();

  const answer = (await (await page.request.get('/api/network')).json()) as {
    enabled: boolean;
    group_key: string;
  };
  const key = page.getByText(`${answer.group_key.slice(0, 8)}…${answer.group_key.slice(-8)}`);
  await expect(key).toBeVisible();
  await expect(key).toHaveAttribute('title', answer.group_key);

  if (LOCAL_NETWORK) {
    expect(answer.enabled).toBe(true);
    await expect(
      page.getByText('2 of 3 guardians must approve every vault transaction.'),
    ).toBeVisible();
    const cards = page.getByRole('list', { name: 'Guardians' }).getByRole('listitem');
    await expect(cards).toHaveCount(3);
    for (const card of await cards.all()) {
      await expect(card.getByText('Online', { exact: true })).toBeVisible();
      await expect(card.locator('dt:text-is("Key fingerprint") + dd')).toHaveText(/^[0-9a-f]{16}$/);
    }
    await expect(page.getByRole('button', { name: 'Copy the group key' })).toBeVisible();
  } else {
    expect(answer.enabled).toBe(false);
    await expect(page.getByText(/^This server signs alone: its one guardian key/)).toBeVisible();
    await expect(page.getByRole('button', { name: 'Copy the guardian key' })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Guardians' })).toHaveCount(0);
  }

  const { width } = page.viewportSize()!;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    width,
  );
  // What scrolls into view (a focused field, a clicked button) stops below the sticky header, as
  // tall as three lines on a phone: the page's scroll padding is the header's height and a gap.
  const headerGap = () =>
    page.evaluate(() => {
      const padding = getComputedStyle(document.documentElement).scrollPaddingTop;
      return parseFloat(padding) - document.querySelector('header')!.offsetHeight;
    });
  await expect.poll(headerGap).toBe(8);
  await checkA11y(page);
  await snap(page, LOCAL_NETWORK ? '60-network-local' : '60-network-alone');
});

// The two-set layout after a rotation, in the real app at every width, with axe. The journeys'
// server has no rotated network (apps/server/test/guardian-network/rotation.test.ts checks the
// real /api/network after one), so this one answer is the server's own with an older set added.
test('after a rotation the page lists the current set, then the retiring one', async ({
  page,
  checkA11y,
  snap,
}) => {
  const real = (await (await page.request.get('/api/network')).json()) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  const member = (id: number, name: string, online = true) => ({
    id,
    name,
    fingerprint: `${id}f2a9c01d4e5b6a${id}`,
    online,
    last_price: online ? { cents: 9_700_000, time: now - 12 } : null,
    last_signature_at: online ? now - 180 : null,
    version: online ? '0.2.0' : null,
    uptime_seconds: online ? 7_500 : null,
  });
  const rotated = {
    ...real,
    enabled: true,
    threshold: 2,
    size: 3,
    set_version: 2,
    group_key: 'a1'.repeat(32),
    guardians: [member(1, 'guardian-1'), member(2, 'guardian-2'), member(3, 'guardian-4')],
    older_sets: [
      {
        set_version: 1,
        threshold: 2,
        size: 3,
        group_key: 'b2'.repeat(32),
        guardians: [
          member(1, 'guardian-1'),
          member(2, 'guardian-2'),
          member(3, 'guardian-3', false),
        ],
      },
    ],
    checked_at: now,
  };
  await page.route('**/api/network', (route) => route.fulfill({ json: rotated }));
  await page.goto('/network');
  const titles = page.getByRole('heading', { level: 2 });
  await expect(titles.first()).toHaveText('Set 2 (current)');
  await expect(titles.nth(1)).toHaveText('Set 1 (retiring)');
  await expect(
    page.getByRole('list', { name: 'Guardians of set 2' }).getByRole('listitem'),
  ).toHaveCount(3);
  const older = page.getByRole('list', { name: 'Guardians of set 1' });
  await expect(older.getByRole('listitem')).toHaveCount(3);
  await expect(
    older.getByRole('listitem', { name: 'guardian-3' }).getByText('Offline', { exact: true }),
  ).toBeVisible();
  const { width } = page.viewportSize()!;
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
    width,
  );
  await checkA11y(page);
  await snap(page, '61-network-two-sets');
});
