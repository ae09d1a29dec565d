import { expect, test } from './fixtures';

test('the built extension loads and its popup renders', async ({ context, extensionId }) => {
  const page = await context.newPage();
  await page.goto(`chrome-extension://${extensionId}/popup.html`);
  await expect(page.locator('main')).toBeVisible();
});
