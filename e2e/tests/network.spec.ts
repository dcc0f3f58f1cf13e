// The /network page (issue 20, item 6) on the real server, at desktop and phone widths, with axe.
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
  await checkA11y(page);
  await snap(page, LOCAL_NETWORK ? '60-network-local' : '60-network-alone');
});
