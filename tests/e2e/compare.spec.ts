import { expect, test } from "@playwright/test";

interface Tree {
  rollouts: { id: string; kind: string; branchedFromTurnId: string | null }[];
  turns: { id: string[]; rollout: number[] };
}

for (const scheme of ["light", "dark"] as const) {
  test(`the compare page shows a root and its branch in two columns aligned at the fork (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const tasks = (await (await page.request.get("/api/tasks")).json()) as { id: string; name: string }[];
    const task = tasks.find((t) => t.name === "seed-task-1")!;
    const tree = (await (await page.request.get(`/api/tasks/${task.id}/tree`)).json()) as Tree;
    const branch = tree.rollouts.find((r) => r.kind === "branch")!;
    const forkIndex = tree.turns.id.indexOf(branch.branchedFromTurnId!);
    const root = tree.rollouts[tree.turns.rollout[forkIndex]!]!;

    await page.goto(`/tasks/${task.id}/compare?a=${root.id}&b=${branch.id}`);
    await expect(page.getByTestId("compare-column-a")).toBeVisible();
    await expect(page.getByTestId("compare-column-b")).toBeVisible();
    await expect(page.getByTestId("compare-head-A")).toContainText("root");
    await expect(page.getByTestId("compare-head-B")).toContainText("branch");
    await expect(page.getByTestId("compare-fork")).toContainText("fork after");
    await expect(page.getByTestId("first-difference")).toBeVisible();
    // Seed rollouts have no checkpoints: the files section says so instead of failing.
    await expect(page.getByTestId("compare-files").getByTestId("files-unavailable")).toBeVisible();
    await page.screenshot({ path: `test-results/screens/compare-${scheme}.png`, fullPage: true });
  });
}

test("the compare API aligns at the fork and refuses unknown rollouts", async ({ page }) => {
  const tasks = (await (await page.request.get("/api/tasks")).json()) as { id: string; name: string }[];
  const task = tasks.find((t) => t.name === "seed-task-2")!;
  const tree = (await (await page.request.get(`/api/tasks/${task.id}/tree`)).json()) as Tree;
  const roots = tree.rollouts.filter((r) => r.kind === "root");
  const res = await page.request.get(`/api/compare?a=${roots[0]!.id}&b=${roots[1]!.id}`);
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { shared: unknown[]; forkTurnId: string | null; firstDifference: number | null };
  // Two roots share nothing: they fork at the task's start.
  expect(body.shared).toEqual([]);
  expect(body.forkTurnId).toBeNull();
  const missing = await page.request.get(`/api/compare?a=${roots[0]!.id}&b=nope`);
  expect(missing.status()).toBe(404);
  expect((await page.request.get("/api/compare?a=x")).status()).toBe(400);
  await page.goto(`/tasks/${task.id}/compare?a=${roots[0]!.id}&b=nope`);
  await expect(page.getByTestId("compare-page").getByRole("alert")).toContainText("no longer exists");
});

test("Compare with… in the inspector leads to the compare page", async ({ page }) => {
  const tasks = (await (await page.request.get("/api/tasks")).json()) as { id: string; name: string }[];
  const task = tasks.find((t) => t.name === "seed-task-1")!;
  const tree = (await (await page.request.get(`/api/tasks/${task.id}/tree`)).json()) as Tree;
  await page.goto(`/tasks/${task.id}?turn=${tree.turns.id[0]}`);
  const inspector = page.getByTestId("inspector");
  await inspector.getByRole("button", { name: "Compare with…" }).click();
  const picker = inspector.getByTestId("compare-picker");
  await expect(picker).toContainText("siblings");
  await picker.getByRole("link").first().click();
  await expect(page).toHaveURL(/\/compare\?a=/);
  await expect(page.getByTestId("compare-column-b")).toBeVisible();
});
