import { expect, test, type Page } from "@playwright/test";

interface TaskRow {
  id: string;
  name: string;
}
interface Tree {
  turns: { id: string[]; index: number[]; rollout: number[]; summary: string[]; tool: (string | null)[] };
  rollouts: { id: string; kind: string }[];
}

async function seedTask(page: Page): Promise<{ task: TaskRow; tree: Tree }> {
  const tasks = (await (await page.request.get("/api/tasks")).json()) as TaskRow[];
  const task = tasks.find((t) => t.name === "seed-task-1")!;
  const tree = (await (await page.request.get(`/api/tasks/${task.id}/tree`)).json()) as Tree;
  return { task, tree };
}

for (const scheme of ["light", "dark"] as const) {
  test(`clicking a turn opens the inspector beside the tree with its tool call and observation (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const { task } = await seedTask(page);
    await page.goto(`/tasks/${task.id}`);
    const tree = page.getByTestId("task-tree");
    await expect(tree).toHaveAttribute("data-ready", "true");
    // Open a collapsed run, then click its first turn.
    await tree.locator('[data-kind="segment"]').first().click();
    const turn = tree.locator('[data-kind="turn"]').first();
    await turn.click();
    const inspector = page.getByTestId("inspector");
    await expect(inspector).toBeVisible();
    await expect(inspector.getByTestId("tool-call")).toContainText("summary");
    await expect(inspector.getByTestId("observation")).toContainText("(seed data) synthetic observation");
    await expect(inspector.getByTestId("assistant-message")).toContainText("synthetic assistant message");
    // The tree stays on screen, and the address names the turn so it can be shared.
    await expect(tree).toBeVisible();
    expect(new URL(page.url()).searchParams.get("turn")).toBe(await turn.getAttribute("data-key"));
    await page.screenshot({ path: `test-results/screens/inspector-turn-${scheme}.png` });

    // Seed turns have no checkpoint: the Files tab says so, and branching is disabled with the reason.
    await inspector.getByRole("tab", { name: "Files" }).click();
    await expect(inspector.getByTestId("files-unavailable")).toContainText("no checkpoint");
    await expect(inspector.getByRole("button", { name: "Branch from here" })).toBeDisabled();
    await page.screenshot({ path: `test-results/screens/inspector-files-${scheme}.png` });

    await inspector.getByRole("tab", { name: "Tokens & timings" }).click();
    await expect(inspector.getByTestId("tokens")).toContainText("900 tokens");
    await inspector.getByRole("button", { name: "Annotate" }).click();
    await expect(inspector.getByTestId("annotations")).toContainText("No annotations on this turn yet.");
    await expect(inspector.getByLabel("note")).toBeFocused();
    await page.screenshot({ path: `test-results/screens/inspector-annotations-${scheme}.png` });

    // Esc in a text box leaves the box; Esc again closes the panel.
    await page.keyboard.press("Escape");
    await page.keyboard.press("Escape");
    await expect(inspector).toBeHidden();
    expect(new URL(page.url()).searchParams.get("turn")).toBeNull();
  });
}

test("the verifier tab appears on a rollout's last turn", async ({ page }) => {
  const { task, tree } = await seedTask(page);
  // The last turn of the first root: highest index in rollout 0.
  let last = -1;
  tree.turns.id.forEach((_, i) => {
    if (tree.turns.rollout[i] === 0 && (last < 0 || tree.turns.index[i]! > tree.turns.index[last]!)) last = i;
  });
  await page.goto(`/tasks/${task.id}?turn=${tree.turns.id[last]}`);
  const inspector = page.getByTestId("inspector");
  await inspector.getByRole("tab", { name: "Verifier" }).click();
  await expect(inspector.getByTestId("verifier")).toContainText("reward");
  // The turn opened from the address is visible in the tree (its run was expanded) and marked.
  await expect(page.locator(`[data-key="${tree.turns.id[last]}"]`)).toBeVisible();
});

test("keyboard: arrows move along and across branches, Enter opens, Esc closes", async ({ page }) => {
  const { task } = await seedTask(page);
  await page.goto(`/tasks/${task.id}`);
  const tree = page.getByTestId("task-tree");
  await expect(tree).toHaveAttribute("data-ready", "true");
  await page.getByTestId("tree-box").focus();
  const selected = () => tree.locator('[aria-selected="true"]');
  await page.keyboard.press("ArrowRight");
  await expect(selected()).toHaveAttribute("data-kind", "start");
  await page.keyboard.press("ArrowRight");
  await expect(selected()).not.toHaveAttribute("data-kind", "start");
  const firstChild = await selected().getAttribute("data-key");
  await page.keyboard.press("ArrowDown");
  await expect(selected()).not.toHaveAttribute("data-key", firstChild!);
  await page.keyboard.press("ArrowUp");
  await expect(selected()).toHaveAttribute("data-key", firstChild!);
  // Enter on a collapsed run expands it and puts the cursor on its first turn; Enter again opens the inspector.
  if ((await selected().getAttribute("data-kind")) === "segment") await page.keyboard.press("Enter");
  await expect(selected()).toHaveAttribute("data-kind", "turn");
  await page.keyboard.press("Enter");
  const inspector = page.getByTestId("inspector");
  await expect(inspector.getByTestId("inspector-title")).toContainText("Turn 0");
  // With the inspector open, it follows the cursor.
  await page.keyboard.press("ArrowRight");
  await expect(inspector.getByTestId("inspector-title")).toContainText("Turn 1");
  await page.keyboard.press("ArrowLeft");
  await expect(inspector.getByTestId("inspector-title")).toContainText("Turn 0");
  await page.screenshot({ path: "test-results/screens/tree-keyboard.png" });
  await page.keyboard.press("Escape");
  await expect(inspector).toBeHidden();
  // Focus returns to the tree so the arrows keep working.
  await page.keyboard.press("ArrowRight");
  await expect(selected()).toHaveAttribute("data-kind", "turn");
});

test("a turn that no longer exists shows a clear message, and the API says why", async ({ page }) => {
  const { task } = await seedTask(page);
  const res = await page.request.get("/api/turns/does-not-exist");
  expect(res.status()).toBe(404);
  expect(await res.json()).toEqual({ error: "turn does-not-exist does not exist" });
  const diff = await page.request.get("/api/turns/does-not-exist/diff?against=start");
  expect(diff.status()).toBe(404);
  expect((await page.request.get("/api/turns/x/diff?against=sideways")).status()).toBe(400);
  await page.goto(`/tasks/${task.id}?turn=does-not-exist`);
  await expect(page.getByTestId("inspector-error")).toContainText("This turn no longer exists.");
  await expect(page.getByTestId("task-tree")).toBeVisible();
  await page.screenshot({ path: "test-results/screens/inspector-missing-turn.png" });
});

test("a turn's detail API returns its content, timings and rollout", async ({ page }) => {
  const { tree } = await seedTask(page);
  const res = await page.request.get(`/api/turns/${tree.turns.id[0]}`);
  expect(res.status()).toBe(200);
  const turn = (await res.json()) as { content: { observation: string }; timings: { modelMs: number }; rollout: { kind: string }; checkpoint: unknown; annotations: unknown[] };
  expect(turn.content.observation).toBe("(seed data) synthetic observation");
  expect(turn.timings.modelMs).toBeGreaterThan(0);
  expect(turn.rollout.kind).toBe("root");
  expect(turn.checkpoint).toBeNull();
  expect(turn.annotations).toEqual([]);
});
