import { expect, test } from "@playwright/test";

test("home lists experiments and tasks from the database, labelled as seed data", async ({ page }) => {
  await page.goto("/");
  const seedRow = page.getByTestId("experiment-list").getByRole("row", { name: /seed: synthetic trees/ });
  await expect(seedRow.getByText("SPROUT")).toBeVisible();
  await expect(seedRow.getByText("seed data")).toBeVisible();
  await expect(seedRow.getByText("completed")).toBeVisible();
  const tasks = page.getByTestId("task-list");
  for (const n of [1, 2, 3]) {
    const link = tasks.getByRole("link", { name: new RegExp(`Seed task ${n}: synthetic rollout tree`) });
    await expect(link).toBeVisible();
    await expect(link.getByText("seed data")).toBeVisible();
  }
  await page.screenshot({ path: "test-results/screens/home.png" });
});

test("a task page draws its turn tree with roots, branches and outcomes", async ({ page, request }) => {
  const tasks = (await (await request.get("/api/tasks")).json()) as { id: string; name: string; turns: number; rollouts: number }[];
  const task = tasks.find((t) => t.name === "seed-task-1")!;
  await page.goto("/");
  await page.getByText("Seed task 1: synthetic rollout tree").click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${task.id}$`));
  await expect(page.getByTestId("task-title")).toHaveText("Seed task 1: synthetic rollout tree");
  await expect(page.getByTestId("tree-stats")).toContainText(`${task.turns} turns · ${task.rollouts} rollouts (4 roots, 3 branches)`);
  const tree = page.getByTestId("task-tree");
  await expect(tree.locator('[data-kind="start"]')).toHaveCount(1);
  // Straight runs are collapsed into segments; forks stay visible as turns.
  const segments = tree.locator('[data-kind="segment"]');
  expect(await segments.count()).toBeGreaterThan(0);
  await expect(tree.locator('[data-tone="resolved"]').first()).toBeVisible();
  await expect(tree.locator('[data-tone="failed"]').first()).toBeVisible();
  // Expanding a segment shows its turns.
  const before = await tree.locator('[data-kind="turn"]').count();
  await segments.first().click();
  await expect.poll(() => tree.locator('[data-kind="turn"]').count()).toBeGreaterThan(before);
  await page.screenshot({ path: "test-results/screens/task-tree.png" });
});

test("an unknown task shows a not-found page, and the API says why", async ({ page, request }) => {
  const res = await request.get("/api/tasks/does-not-exist/tree");
  expect(res.status()).toBe(404);
  expect(await res.json()).toEqual({ error: "task does-not-exist does not exist" });
  const nav = await page.goto("/tasks/does-not-exist");
  expect(nav?.status()).toBe(404);
});
