import { expect, test } from "@playwright/test";
import WebSocket from "ws";
import { E2E_TOKEN } from "../../playwright.config";

const PORT = Number(process.env.E2E_PORT ?? 3107) + 1;
const base = `http://127.0.0.1:${PORT}`;

/** Resolves with the HTTP status the upgrade got, or 101 and the first message when it was accepted. */
function upgrade(headers: Record<string, string>, query = ""): Promise<{ status: number; message?: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws/health${query}`, { headers });
    ws.on("unexpected-response", (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on("message", (data: Buffer) => resolve({ status: 101, message: data.toString() }));
    ws.on("error", () => resolve({ status: -1 }));
  });
}

test.describe("a server on a non-loopback address requires its token", () => {
  test("route handlers refuse requests without the token", async ({ request }) => {
    const none = await request.get(`${base}/api/tasks`);
    expect(none.status()).toBe(401);
    expect(await none.json()).toEqual({ error: "missing or wrong token" });
    expect((await request.get(`${base}/api/tasks`, { headers: { authorization: "Bearer wrong-token-wrong-token" } })).status()).toBe(401);
    const ok = await request.get(`${base}/api/tasks`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } });
    expect(ok.status()).toBe(200);
  });

  test("a page opened with ?token= keeps it in a cookie and drops it from the address", async ({ page }) => {
    expect((await page.goto(`${base}/`))?.status()).toBe(401);
    await page.goto(`${base}/?token=${E2E_TOKEN}`);
    await expect(page).toHaveURL(`${base}/`);
    await expect(page.getByTestId("task-list")).toBeVisible();
    // The page's own API calls now carry the cookie.
    expect(await page.evaluate(async () => (await fetch("/api/tasks")).status)).toBe(200);
  });

  test("WebSocket upgrades need the token and a same-site origin", async () => {
    expect((await upgrade({})).status).toBe(401);
    expect(await upgrade({ authorization: `Bearer ${E2E_TOKEN}` })).toEqual({ status: 101, message: '{"ok":true}' });
    expect(await upgrade({ cookie: `sprout_token=${E2E_TOKEN}`, origin: base })).toEqual({ status: 101, message: '{"ok":true}' });
    expect((await upgrade({ cookie: `sprout_token=${E2E_TOKEN}`, origin: "http://evil.example" })).status).toBe(403);
  });
});
