import { expect, test } from "@playwright/test";

test("hovering a node shows its tool call in a small card; a tree wider than the screen shows the mini-map", async ({ page }) => {
  const tasks = (await (await page.request.get("/api/tasks")).json()) as { id: string; name: string }[];
  const task = tasks.find((t) => t.name === "seed-task-3")!;
  await page.goto(`/tasks/${task.id}`);
  const tree = page.getByTestId("task-tree");
  await expect(tree).toHaveAttribute("data-ready", "true");
  await tree.locator('[data-kind="segment"]').first().hover();
  await expect(page.getByTestId("hover-card")).toContainText("turn");
  // Summaries are not part of the tree's payload: the card fills them in once they arrive.
  await expect(page.getByTestId("hover-card").locator("p.font-mono")).not.toHaveText(/^…/);
  // Expanding the longest run makes the tree wider than the screen: the overview appears.
  await expect(page.getByTestId("mini-map")).toBeHidden();
  await tree.locator('[data-kind="segment"]', { hasText: "×18" }).click();
  await expect(page.getByTestId("mini-map")).toBeVisible();
  const box = (await page.getByTestId("tree-box").boundingBox())!;
  // Dragging pans without opening anything.
  await page.mouse.move(box.x + 300, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + 500, box.y + 260, { steps: 8 });
  await page.mouse.up();
  await expect(page.getByTestId("inspector")).toBeHidden();
  await page.screenshot({ path: "test-results/screens/tree-zoomed-minimap.png" });
});
