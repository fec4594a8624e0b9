import { expect, test } from "@playwright/test";

test("the home page compares finished methods over the same tasks: resolve rate, steps and tokens", async ({ page, request }) => {
  test.setTimeout(180_000);
  const tasks = ["units-converter-fix", "markdown-to-html"];
  const start = async (data: object) => {
    const res = await request.post("/api/experiments", { data: { preset: "custom", tasks, ...data } });
    expect(res.status()).toBe(202);
    return ((await res.json()) as { id: string }).id;
  };
  // Short rollouts (6 steps): what is compared here is the chart, not the methods.
  const ids = [await start({ name: "e2e pass@1", method: "pass1", config: { maxSteps: 6 } }), await start({ name: "e2e pass@2", method: "passk", config: { k: 2, maxSteps: 6 } })];
  for (const id of ids) {
    await expect.poll(async () => ((await (await request.get(`/api/experiments/${id}`)).json()) as { status: string }).status, { timeout: 150_000 }).toBe("completed");
  }
  await page.goto("/");
  const chart = page.getByTestId("method-chart");
  await expect(chart).toContainText("over 2 tasks");
  const rows = chart.locator("tbody tr");
  await expect(rows.filter({ hasText: "pass@1" })).toHaveCount(1);
  const passk = rows.filter({ hasText: "k = 2" });
  await expect(passk).toHaveCount(1);
  // pass@2 runs twice the roots of pass@1, so it executes more steps.
  const steps = async (name: string) => Number((await rows.filter({ hasText: name }).locator("td").nth(2).textContent())?.replace(/\D/g, ""));
  expect(await steps("k = 2")).toBeGreaterThan(await steps("pass@1"));
  await expect(page.getByTestId("experiment-list")).toContainText("k = 2");
  await chart.screenshot({ path: "test-results/screens/method-chart.png" });
});
