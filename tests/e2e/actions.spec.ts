import { expect, test, type APIRequestContext } from "@playwright/test";

/** A finished, failed rollout of a built-in task, made by the server itself (demo policy, stopped early). */
async function failedRollout(request: APIRequestContext): Promise<{ taskId: string }> {
  const started = await request.post("/api/experiments", {
    data: { preset: "custom", method: "pass1", tasks: ["markdown-to-html"], config: { maxSteps: 4 } },
  });
  expect(started.status()).toBe(202);
  const { id } = (await started.json()) as { id: string };
  await expect
    .poll(async () => ((await (await request.get(`/api/experiments/${id}`)).json()) as { status: string }).status, { timeout: 90_000 })
    .toBe("completed");
  const tasks = (await (await request.get("/api/tasks")).json()) as { id: string; name: string }[];
  return { taskId: tasks.find((t) => t.name === "markdown-to-html")!.id };
}

const turnCount = async (request: APIRequestContext, taskId: string) =>
  ((await (await request.get(`/api/tasks/${taskId}/tree`)).json()) as { turns: { id: string[] } }).turns.id.length;

test("act from the tree on real rollouts: branch from a turn, backtrack from failures, export the groups", async ({ page, request }) => {
  test.setTimeout(240_000);
  const { taskId } = await failedRollout(request);
  const before = await turnCount(request, taskId);
  await page.goto(`/tasks/${taskId}`);

  // Branch from here, with a hint: a new rollout grows from that turn.
  // Four straight turns are drawn as one segment: expand it, then open its first turn.
  const tree = page.getByTestId("task-tree");
  if ((await tree.locator('[data-kind="turn"]').count()) === 0) await tree.locator('[data-kind="segment"]').first().click();
  await tree.locator('[data-kind="turn"]').first().click();
  await page.getByRole("button", { name: "Branch from here" }).click();
  await page.getByLabel("hint").fill("check the output of each step before moving on");
  await page.getByRole("button", { name: "Start branch" }).click();
  await expect(page.getByText(/Started 1 branch/)).toBeVisible({ timeout: 30_000 });
  await expect.poll(() => turnCount(request, taskId), { timeout: 90_000 }).toBeGreaterThan(before);

  // A verifier-guided review round over the failed rollouts.
  await page.getByRole("button", { name: "Backtrack from failures" }).click();
  await expect(page.getByTestId("backtrack-result")).toContainText(/Review chose \d+ branch/, { timeout: 60_000 });
  await page.screenshot({ path: "test-results/screens/actions.png" });

  // The training groups download as JSONL, one line per finished rollout.
  const exported = await request.get(`/api/tasks/${taskId}/export`);
  expect(exported.headers()["content-type"]).toContain("application/x-ndjson");
  const lines = (await exported.text()).trim().split("\n").map((l) => JSON.parse(l) as { task: string; messages: unknown[]; generated_mask: number[] });
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) {
    expect(l.task).toBe("markdown-to-html");
    expect(l.messages.length).toBe(l.generated_mask.length);
  }
});

test("bad requests from the dashboard get a clear message and change nothing", async ({ request }) => {
  const missing = await request.post("/api/turns/no-such-turn/branches", { data: { hint: "x" } });
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toEqual({ error: "turn no-such-turn does not exist" });
  const notJson = await request.post("/api/turns/no-such-turn/branches", { headers: { "content-type": "application/json" }, data: "{oops" });
  expect(notJson.status()).toBe(400);
  const badCount = await request.post("/api/turns/no-such-turn/branches", { data: { count: 99 } });
  expect(badCount.status()).toBe(400);
  expect(((await badCount.json()) as { error: string }).error).toMatch(/^count: /);
  const emptyLabel = await request.post("/api/turns/no-such-turn/annotations", { data: { label: " " } });
  expect(emptyLabel.status()).toBe(400);
});
