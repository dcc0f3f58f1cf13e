// Journey 6: a component throws while rendering; the error screen replaces the page with SPEC §2's
// texts, and 'Try again' renders the route again. The throw comes from the devnet's crash drill
// (`?devnet-crash=render`, devnet only), a real render error through the real error boundary.
import { test, expect } from '../support/fixtures';

test('the error screen appears on a render error and Try again recovers', async ({
  page,
  checkA11y,
  snap,
}) => {
  // 'Our team has been notified' is true: the boundary reports the error to the server.
  const report = page.waitForRequest(
    (r) => r.url().endsWith('/api/client-errors') && r.method() === 'POST',
  );
  await page.goto('/?devnet-crash=render');
  await expect(page.getByRole('heading', { name: 'Oops! Something went wrong' })).toBeVisible();
  expect((await report).postDataJSON()).toMatchObject({
    boundary: 'screen',
    message: 'Devnet crash drill: a deliberate render error',
  });
  expect((await (await report).response())?.status()).toBe(204);
  await expect(
    page.getByText(
      "We've encountered an unexpected error. Our team has been notified and is working on a fix.",
    ),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Reload page' })).toBeVisible();
  await checkA11y(page);
  await snap(page, '40-error-screen');

  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByRole('heading', { name: 'Oops! Something went wrong' })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Create Vault' }).first()).toBeVisible();
  await checkA11y(page);
  await snap(page, '41-recovered');
});

test('an unknown address shows the not-found page inside the shell, not the crash screen', async ({
  page,
  checkA11y,
  snap,
}) => {
  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Oops! Something went wrong' })).toBeHidden();
  await checkA11y(page);
  await snap(page, '42-not-found');
  await page.getByRole('link', { name: 'Go to your vault' }).click();
  await expect(page.getByRole('button', { name: 'Create Vault' }).first()).toBeVisible();
});
