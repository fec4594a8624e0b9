import { expect, test } from "@playwright/test";

test("one click runs the built-in demo experiment and the task tree grows live", async ({ page }) => {
  test.setTimeout(180_000);
  await page.goto("/");
  await page.getByTestId("run-demo").click();
  await expect(page).toHaveURL(/\/tasks\/[^/?]+\?experiment=/, { timeout: 30_000 });
  const experimentId = new URL(page.url()).searchParams.get("experiment")!;
  const turnCount = async () => {
    const text = (await page.getByTestId("tree-stats").textContent().catch(() => null)) ?? "0 turns";
    return Number(/^(\d+) turns/.exec(text)?.[1] ?? 0);
  };
  // The page was not reloaded: new turns arrive through server-sent events.
  await expect.poll(turnCount, { timeout: 90_000 }).toBeGreaterThan(0);
  const first = await turnCount();
  await expect.poll(turnCount, { timeout: 90_000 }).toBeGreaterThan(first);
  await page.screenshot({ path: "test-results/screens/demo-tree-growing.png" });

  await page.goto(`/experiments/${experimentId}`);
  await expect(page.getByTestId("experiment-name")).toHaveText("Demo: SPROUT on the built-in suite (demo policy)");
  await expect(page.getByTestId("metrics-table")).toBeVisible();
  await expect(page.getByTestId("experiment-tasks").getByRole("link")).toHaveCount(8);
  await expect(page.getByText(/Demo policy: a scripted stand-in/)).toBeVisible();
  await page.screenshot({ path: "test-results/screens/experiment.png" });
  // Stop it, so the rest of the suite does not share the machine with eight rollouts.
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByText("cancelled").first()).toBeVisible({ timeout: 90_000 });
});
