/**
 * The live terminal: restore a turn's checkpoint into a shell in the browser, stream output with
 * flow control, save what the person did as a human turn, reattach after a dropped socket.
 * The seed data has no checkpoints, so a short demo rollout makes real turns first.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import WebSocket from "ws";
import { E2E_TOKEN } from "../../playwright.config";
import type { TaskTree } from "../../server/tree/tree-types";

test.describe.configure({ mode: "serial" });

const SCREENS = "test-results/screens";
const ORIGINAL_DIR = "server/tasks/builtin/markdown-to-html/environment/workspace/md2html";

type Tree = TaskTree;

let taskId = "";
let firstTurn = "";
let lastTurn = "";
let secondTurn = "";

async function tree(api: APIRequestContext): Promise<Tree> {
  return (await (await api.get(`/api/tasks/${taskId}/tree`)).json()) as Tree;
}

test.beforeAll(async ({ playwright, baseURL }) => {
  test.setTimeout(180_000);
  const api = await playwright.request.newContext({ baseURL });
  const started = await api.post("/api/experiments", { data: { preset: "custom", method: "pass1", tasks: ["markdown-to-html"], config: { maxSteps: 8 } } });
  expect(started.status()).toBe(202);
  const { id, firstTaskId } = (await started.json()) as { id: string; firstTaskId: string };
  taskId = firstTaskId;
  await expect
    .poll(async () => ((await (await api.get(`/api/experiments/${id}`)).json()) as { status: string }).status, { timeout: 150_000 })
    .toMatch(/completed|failed/);
  const t = await tree(api);
  // Other tests may have run rollouts of this task too: take this experiment's root.
  const root = t.rollouts.findIndex((r) => r.kind === "root" && r.experimentId === id);
  const turns = t.turns.id.map((tid, i) => ({ id: tid, index: t.turns.index[i]!, rollout: t.turns.rollout[i]!, ckpt: t.turns.hasCheckpoint[i] === 1 })).filter((x) => x.rollout === root && x.ckpt);
  turns.sort((a, b) => a.index - b.index);
  expect(turns.length).toBeGreaterThan(3);
  firstTurn = turns[0]!.id;
  secondTurn = turns[1]!.id;
  lastTurn = turns.at(-1)!.id;
  await api.dispose();
});

/** The session id of the terminal tab on show. */
async function activeSession(page: Page): Promise<string> {
  const id = await page.locator("section[data-terminal]:visible").getAttribute("data-terminal");
  expect(id).toBeTruthy();
  return id!;
}

async function screenText(page: Page, sessionId: string): Promise<string> {
  return page.evaluate((id) => window.sproutTerminals?.get(id)?.text() ?? "", sessionId);
}

/** Type a command into the terminal on show and wait for a marker it prints after it. */
async function run(page: Page, command: string, marker: string, timeout = 15_000): Promise<string> {
  const session = await activeSession(page);
  await page.locator("section[data-terminal]:visible [data-testid=terminal-screen]").click();
  await page.keyboard.type(`${command}; echo ${marker}-$((40+2))\n`);
  await expect.poll(async () => (await screenText(page, session)).includes(`${marker}-42\n`), { timeout }).toBe(true);
  const text = await screenText(page, session);
  return text.slice(0, text.lastIndexOf(`${marker}-42\n`));
}

async function openOn(page: Page, turnId: string): Promise<string> {
  await page.goto(`/terminals?turn=${turnId}`);
  await expect(page.locator("section[data-terminal]:visible [data-testid=terminal-status]")).toHaveAttribute("data-state", "open", { timeout: 20_000 });
  return activeSession(page);
}

function originalHashes(): Map<string, string> {
  return new Map(
    readdirSync(ORIGINAL_DIR)
      .filter((f) => f.endsWith(".py"))
      .map((f) => [f, createHash("md5").update(readFileSync(path.join(ORIGINAL_DIR, f))).digest("hex")]),
  );
}

function parseHashes(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/^([0-9a-f]{32}) {2}md2html\/(\S+\.py)$/gm)) found.set(m[2]!, m[1]!);
  return found;
}

test("a terminal on a turn sees that turn's files, not a later turn's, and a second one opens in another tab", async ({ page }) => {
  await openOn(page, firstTurn);
  await expect(page.locator("section[data-terminal]:visible [data-testid=terminal-title]")).toHaveText(/markdown-to-html · checkpoint of turn 0/);
  const out = await run(page, "pwd; md5sum md2html/*.py", "HASHES");
  expect(out).toContain("/workspace");
  const original = originalHashes();
  const atFirst = parseHashes(out);
  expect(atFirst).toEqual(original);
  await page.screenshot({ path: `${SCREENS}/terminal-open.png` });

  // A second terminal, on the rollout's last turn, in a second tab of the same page.
  await page.getByLabel("Turn id").fill(lastTurn);
  await page.getByRole("button", { name: "Open terminal" }).click();
  await expect(page.getByRole("tab")).toHaveCount(2);
  await expect(page.locator("section[data-terminal]:visible [data-testid=terminal-status]")).toHaveAttribute("data-state", "open", { timeout: 20_000 });
  const later = parseHashes(await run(page, "md5sum md2html/*.py", "LATER"));
  expect([...later].some(([f, h]) => original.get(f) !== h)).toBe(true);
  await page.screenshot({ path: `${SCREENS}/terminal-two-tabs.png` });

  // The first tab still works.
  await page.getByRole("tab").first().click();
  expect(await run(page, "echo still-here", "FIRST")).toContain("still-here");
});

test("a flood of output keeps the page responsive and ends with its last line", async ({ page }) => {
  await openOn(page, firstTurn);
  const session = await activeSession(page);
  await page.locator("section[data-terminal]:visible [data-testid=terminal-screen]").click();
  await page.keyboard.type("seq 1 2000000\n");
  const slowest = { evaluate: 0, click: 0 };
  const started = Date.now();
  // While the output streams, the page answers scripts and clicks.
  while (Date.now() - started < 4000) {
    let t = Date.now();
    await page.evaluate(() => document.title);
    slowest.evaluate = Math.max(slowest.evaluate, Date.now() - t);
    t = Date.now();
    await page.getByRole("tab").first().click();
    slowest.click = Math.max(slowest.click, Date.now() - t);
  }
  // A click is several protocol round trips plus actionability checks; both bounds leave room for a busy 2-core CI machine.
  expect(slowest.evaluate).toBeLessThan(1000);
  expect(slowest.click).toBeLessThan(2500);
  await expect.poll(async () => /\n2000000\n.*[#$] *$/s.test((await screenText(page, session)).trimEnd() + " "), { timeout: 90_000 }).toBe(true);
  await expect(page.locator("section[data-terminal]:visible .xterm-rows")).toContainText("2000000");
  await page.screenshot({ path: `${SCREENS}/terminal-flood.png` });
  test.info().annotations.push({ type: "slowest", description: JSON.stringify(slowest) });
});

test("save as checkpoint records a human turn branching from the terminal's turn", async ({ page, request }) => {
  await openOn(page, secondTurn);
  await run(page, "echo human-was-here > notes.txt", "WROTE");
  await page.getByRole("button", { name: "Save as checkpoint" }).click();
  await expect(page.getByText(/Saved as turn \d+ of a human branch/)).toBeVisible({ timeout: 20_000 });
  // The saved files carry on in a new shell.
  await expect.poll(async () => (await run(page, "cat notes.txt", "READ")).includes("human-was-here"), { timeout: 20_000 }).toBe(true);
  await page.getByRole("button", { name: "Save as checkpoint" }).click();
  await expect(page.getByText(/Saved turns: \d+, \d+/)).toBeVisible({ timeout: 20_000 });
  await page.screenshot({ path: `${SCREENS}/terminal-saved.png` });

  const t = await tree(request);
  const human = t.rollouts.findIndex((r) => r.kind === "human" && r.branchedFromTurnId === secondTurn);
  expect(human).toBeGreaterThanOrEqual(0);
  const humanTurns = t.turns.id.map((_, i) => i).filter((i) => t.turns.rollout[i] === human);
  expect(humanTurns.map((i) => t.authors[t.turns.author[i]!])).toEqual(["human", "human"]);
  expect(humanTurns.every((i) => t.turns.hasCheckpoint[i] === 1)).toBe(true);
  const secondIndex = t.turns.index[(t.turns.id as string[]).indexOf(secondTurn)]!;
  expect(humanTurns.map((i) => t.turns.index[i]).sort()).toEqual([secondIndex + 1, secondIndex + 2]);
  const detail = (await (await request.get(`/api/turns/${t.turns.id[humanTurns[0]!]}`)).json()) as { summary?: string };
  expect(JSON.stringify(detail)).toContain("echo human-was-here > notes.txt");
});

test("a dropped connection reattaches and replays the output", async ({ page }) => {
  await openOn(page, firstTurn);
  const session = await activeSession(page);
  await run(page, "echo before-drop", "BEFORE");
  const attaches = (): Promise<number> => page.evaluate((id) => window.sproutTerminals?.get(id)?.attaches() ?? 0, session);
  expect(await attaches()).toBe(1);
  await page.evaluate((id) => window.sproutTerminals?.get(id)?.drop(), session);
  // Typed while the page reconnects: held and sent once the terminal is back, not lost.
  await page.keyboard.type("echo typed-while-away\n");
  await expect.poll(attaches, { timeout: 15_000 }).toBe(2);
  await expect(page.locator("section[data-terminal]:visible [data-testid=terminal-status]")).toHaveAttribute("data-state", "open");
  await expect.poll(async () => (await screenText(page, session)).includes("BEFORE-42"), { timeout: 10_000 }).toBe(true);
  await expect.poll(async () => (await screenText(page, session)).includes("\ntyped-while-away"), { timeout: 10_000 }).toBe(true);
  expect(await run(page, "echo after-drop", "AFTER")).toContain("after-drop");
  // A reload reattaches too (the session id is kept in sessionStorage).
  await page.reload();
  await expect(page.locator("section[data-terminal]:visible [data-testid=terminal-status]")).toHaveAttribute("data-state", "open", { timeout: 15_000 });
  expect(await activeSession(page)).toBe(session);
  await expect.poll(async () => (await screenText(page, session)).includes("AFTER-42"), { timeout: 10_000 }).toBe(true);
  await page.screenshot({ path: `${SCREENS}/terminal-reattached.png` });
});

test("when every terminal slot is taken the page says so", async ({ page, request }) => {
  const opened: string[] = [];
  let full: { status: number; error: string } | null = null;
  for (let i = 0; i < 40 && !full; i++) {
    const r = await request.post("/api/terminals", { data: { turnId: firstTurn } });
    if (r.status() === 201) opened.push(((await r.json()) as { sessionId: string }).sessionId);
    else full = { status: r.status(), error: ((await r.json()) as { error: string }).error };
  }
  expect(full?.status).toBe(409);
  expect(full?.error).toMatch(/All \d+ terminals are in use/);
  await page.goto(`/terminals?turn=${firstTurn}`);
  await expect(page.getByRole("alert").filter({ hasText: /All \d+ terminals are in use/ })).toBeVisible();
  await page.screenshot({ path: `${SCREENS}/terminal-full.png` });
  for (const id of opened) expect((await request.delete(`/api/terminals/${id}`)).status()).toBe(200);
});

test("an unknown turn and a turn without a checkpoint get clear answers", async ({ request, baseURL }) => {
  const r = await request.post("/api/terminals", { data: { turnId: "no-such-turn" } });
  expect(r.status()).toBe(404);
  expect(((await r.json()) as { error: string }).error).toMatch(/does not exist/);
  // The page opens terminals over the socket itself (?turn=): the same sentence, then close code 4409.
  const ws = new WebSocket(`${baseURL!.replace(/^http/, "ws")}/ws/terminal?turn=no-such-turn`, { headers: { origin: baseURL! } });
  const refused = await new Promise<{ message: string; code: number }>((resolve) => {
    let message = "";
    ws.on("message", (data: Buffer) => (message = data.toString()));
    ws.on("close", (code) => resolve({ message, code }));
  });
  expect(refused.code).toBe(4409);
  expect(JSON.parse(refused.message)).toMatchObject({ type: "refused", message: expect.stringMatching(/does not exist/) });
});

test.describe("the terminal socket on a server with a token", () => {
  const PORT = Number(process.env.E2E_PORT ?? 3107) + 1;
  const base = `http://127.0.0.1:${PORT}`;
  function upgrade(headers: Record<string, string>): Promise<{ status: number; message?: string }> {
    return new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws/terminal?session=abc`, { headers });
      ws.on("unexpected-response", (_req, res) => resolve({ status: res.statusCode ?? 0 }));
      ws.on("message", (data: Buffer) => resolve({ status: 101, message: data.toString() }));
      ws.on("error", () => resolve({ status: -1 }));
    });
  }

  test("is refused without the token or from a foreign origin", async () => {
    expect((await upgrade({})).status).toBe(401);
    expect((await upgrade({ origin: base })).status).toBe(401);
    expect((await upgrade({ cookie: `sprout_token=${E2E_TOKEN}`, origin: "http://evil.example" })).status).toBe(403);
    const ok = await upgrade({ cookie: `sprout_token=${E2E_TOKEN}`, origin: base });
    expect(ok.status).toBe(101);
    expect(ok.message).toMatch(/"type":"ended".*does not exist/);
  });
});
