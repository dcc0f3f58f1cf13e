// Journey 6: a component throws while rendering; the error screen replaces the page with SPEC §2's
// texts, and 'Try again' renders the route again. The throw comes from the devnet's crash drill
// (`?devnet-crash=render`, devnet only), a real render error through the real error boundary.
import { test, expect } from '../support/fixtures';

test('the error screen appears on a render error and Try again recovers', async ({
  page,
  checkA11y,
  snap,
}) => {
  await page.goto('/?devnet-crash=render');
  await expect(page.getByRole('heading', { name: 'Oops! Something went wrong' })).toBeVisible();
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
