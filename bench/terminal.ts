/**
 * Terminal benchmark: the production build, the local driver, Chromium.
 *
 *   npx next build && npx tsx bench/terminal.ts [--port 3137] [--runs 10]
 *
 * Measures
 *   terminal_open_ms          click "Open terminal" → the first prompt is drawn on the screen (median of runs; the
 *                             benchmark's clock, so Playwright's click is in it)
 *   terminal_open_page_ms     the same in the page's clock: the click event → the frame after the prompt is drawn
 *   keystroke_echo_ms         one key sent over the terminal WebSocket on loopback → its echo received (median of 200;
 *                             a Node client, so the browser's rendering is not in it)
 *   burst_50mb_ms             `head -c 50MB` of text through the page until its last line is on the screen
 *   burst_page_max_ms         the slowest page.evaluate() round trip while the burst streams (responsiveness)
 *   burst_server_rss_growth_mb  server RSS peak during the burst minus RSS before it
 * Prints progress lines, then one JSON object as the last line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { chromium, type Page } from "@playwright/test";
import { arg, median, pct, round } from "./bench-util";
import WebSocket from "ws";

const root = path.resolve(import.meta.dirname, "..");
const PORT = arg("port", 3137);
const RUNS = arg("runs", 10);
const BASE = `http://127.0.0.1:${PORT}`;
const log = (s: string) => console.log(s);

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await probe().catch(() => null);
    if (v) return v;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}`);
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function json<T>(url: string, init?: RequestInit): Promise<T> {
  const r = await fetch(`${BASE}${url}`, { ...init, headers: { "content-type": "application/json", ...init?.headers } });
  if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

/** A turn with a checkpoint: a short demo rollout on the server under test. */
async function makeTurn(): Promise<string> {
  const { id, firstTaskId } = await json<{ id: string; firstTaskId: string }>("/api/experiments", {
    method: "POST",
    body: JSON.stringify({ preset: "custom", method: "pass1", tasks: ["markdown-to-html"], config: { maxSteps: 3 } }),
  });
  await waitFor("the demo rollout", async () => /completed|failed/.test((await json<{ status: string }>(`/api/experiments/${id}`)).status), 120_000, 250);
  const tree = await json<{ turns: { id: string[]; hasCheckpoint: number[] } }>(`/api/tasks/${firstTaskId}/tree`);
  const i = tree.turns.hasCheckpoint.lastIndexOf(1);
  if (i < 0) throw new Error("the demo rollout made no checkpoint");
  return tree.turns.id[i]!;
}

function screenText(page: Page, session: string): Promise<string> {
  // A string, not a function: tsx's helpers (__name) do not exist in the page.
  return page.evaluate(`window.sproutTerminals?.get(${JSON.stringify(session)})?.text() ?? ""`);
}

/** Steps of one open (the page's sprout-terminal:* marks), in ms after the click event. */
type OpenSteps = Record<string, number>;

/**
 * Resolves (in the page) once a terminal tab that was not there before shows a prompt in its drawn rows
 * (xterm's DOM renderer), checked after every frame: what is on the screen, not only in xterm's buffer.
 * Also records the click's event time and returns the open's marks relative to it.
 */
const WAIT_FOR_PROMPT = `new Promise((resolve, reject) => {
  const before = new Set([...document.querySelectorAll("section[data-terminal]")].map((s) => s.dataset.terminal));
  let clickAt = null;
  document.addEventListener("click", (e) => { clickAt ??= e.timeStamp; }, { capture: true, once: true });
  performance.clearMarks();
  const deadline = performance.now() + 20000;
  const check = () => {
    for (const s of document.querySelectorAll("section[data-terminal]")) {
      if (before.has(s.dataset.terminal)) continue;
      const rows = [...s.querySelectorAll(".xterm-rows > div")].map((r) => r.textContent).join("\\n").trimEnd();
      if (/[#$] *$/.test(rows)) {
        const at = performance.now();
        const steps = { prompt_drawn: at - clickAt };
        for (const m of performance.getEntriesByType("mark")) if (m.name.startsWith("sprout-terminal:")) steps[m.name.slice(16)] ??= m.startTime - clickAt;
        return resolve({ session: s.dataset.terminal, steps });
      }
    }
    if (performance.now() > deadline) return reject(new Error("no prompt on the screen: " + JSON.stringify([...document.querySelectorAll(".xterm-rows")].map((r) => r.textContent))));
    requestAnimationFrame(() => setTimeout(check, 0));
  };
  check();
})`;

async function openInPage(page: Page, turnId: string): Promise<{ ms: number; session: string; steps: OpenSteps }> {
  await page.goto(`${BASE}/terminals`);
  // The page writes its tabs to sessionStorage once it has mounted: clear them after that, or they come back.
  await page.getByLabel("Turn id").waitFor();
  await page.evaluate("sessionStorage.clear()");
  await page.goto(`${BASE}/terminals`);
  await page.getByLabel("Turn id").fill(turnId);
  const drawn = page.evaluate<{ session: string; steps: OpenSteps }>(WAIT_FOR_PROMPT);
  const t0 = Date.now();
  await page.getByRole("button", { name: "Open terminal" }).click();
  const r = await drawn.catch(async (e: unknown) => {
    await page.screenshot({ path: path.join(root, "test-results", "screens", "terminal-bench-failed-open.png") });
    throw e;
  });
  return { ms: Date.now() - t0, ...r };
}

async function echoLatencies(session: string, n: number): Promise<number[]> {
  const ws = new WebSocket(`ws://127.0.0.1:${PORT}/ws/terminal?session=${session}`, { headers: { origin: BASE } });
  await new Promise<void>((resolve, reject) => {
    ws.once("message", () => resolve());
    ws.once("error", reject);
  });
  let waiting: { ch: string; resolve: () => void } | null = null;
  let received = 0;
  ws.on("message", (data: Buffer, isBinary: boolean) => {
    if (!isBinary) return;
    received += data.length;
    ws.send(JSON.stringify({ type: "ack", bytes: received }));
    if (waiting && data.toString().includes(waiting.ch)) {
      const w = waiting;
      waiting = null;
      w.resolve();
    }
  });
  await new Promise((r) => setTimeout(r, 300));
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const ch = "abcdefghijklmnopqrstuvwxyz"[i % 26]!;
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      waiting = { ch, resolve };
      ws.send(JSON.stringify({ type: "input", data: ch }));
    });
    times.push(performance.now() - t0);
    if (i % 60 === 59) ws.send(JSON.stringify({ type: "input", data: "\x15" }));
  }
  ws.send(JSON.stringify({ type: "input", data: "\x15" }));
  ws.close();
  return times;
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npx next build` first");
  const dir = path.join(root, "data", "bench-terminal");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server: ChildProcess = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${path.join(dir, "sprout.db")}`,
      SPROUT_DATA_DIR: dir,
      SPROUT_DRIVER: "local",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      SPROUT_TOKEN: "",
      SPROUT_MAX_TERMINALS: String(RUNS + 4),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    await waitFor("the server", async () => (await fetch(`${BASE}/api/health`)).ok, 120_000, 250);
    const turnId = await makeTurn();
    log(`server up; terminals on turn ${turnId}`);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });

    const opens: number[] = [];
    const steps = new Map<string, number[]>();
    let session = "";
    for (let i = 0; i < RUNS + 1; i++) {
      const r = await openInPage(page, turnId);
      // The first warms the page's code and the driver.
      if (i > 0) {
        opens.push(r.ms);
        for (const [k, v] of Object.entries(r.steps)) steps.set(k, [...(steps.get(k) ?? []), v]);
      }
      log(`open ${i}: ${r.ms} ms (drawn ${round(r.steps.prompt_drawn ?? NaN)} ms after the click event)`);
      if (i < RUNS) await fetch(`${BASE}/api/terminals/${r.session}`, { method: "DELETE" });
      session = r.session;
    }
    log(`terminal_open_ms: median ${round(median(opens))}, p90 ${round(pct(opens, 90))} (${opens.map(round).join(", ")})`);
    const byTime = [...steps].map(([k, v]) => [k, round(median(v))] as const).sort((a, b) => a[1] - b[1]);
    log(`open steps, median ms after the click event: ${byTime.map(([k, v]) => `${k} ${v}`).join(", ")}`);

    // The page lets go of the terminal while a Node client measures echoes, then reattaches.
    await page.goto(`${BASE}/`);
    const echoes = await echoLatencies(session, 200);
    log(`keystroke_echo_ms: median ${round(median(echoes))}, p95 ${round(pct(echoes, 95))}`);

    await page.goto(`${BASE}/terminals`);
    await waitFor("the reattached prompt", async () => /[#$] *$/.test((await screenText(page, session)).trimEnd()), 20_000, 20);
    const rssBefore = rssMb(server.pid!);
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, rssMb(server.pid!));
    }, 50);
    await page.locator("[data-testid=terminal-screen]").first().click();
    const t0 = Date.now();
    // 50,000,000 bytes of 100-character lines, then a marker line.
    await page.keyboard.type("yes 012345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678 | head -c 50000000; echo BURST-$((40+2))\n");
    let pageMax = 0;
    const evaluations: number[] = [];
    for (;;) {
      const e0 = performance.now();
      const text = await screenText(page, session);
      const ms = performance.now() - e0;
      evaluations.push(ms);
      pageMax = Math.max(pageMax, ms);
      if (/\nBURST-42\n/.test(text.slice(-2000))) break;
      if (Date.now() - t0 > 300_000) throw new Error("the burst did not finish within 300 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    const burstMs = Date.now() - t0;
    clearInterval(sampler);
    log(`burst: ${burstMs} ms for 50 MB (${round(50 / (burstMs / 1000))} MB/s); page round trip max ${round(pageMax)} ms, median ${round(median(evaluations))} ms; server RSS ${round(rssBefore)} → peak ${round(rssPeak)} MB`);
    await page.screenshot({ path: path.join(root, "test-results", "screens", "terminal-bench-burst.png") });

    console.log(
      JSON.stringify({
        bench: "terminal",
        driver: "local",
        terminal_open_ms: round(median(opens)),
        terminal_open_p90_ms: round(pct(opens, 90)),
        terminal_open_page_ms: round(median(steps.get("prompt_drawn") ?? [])),
        keystroke_echo_ms: round(median(echoes)),
        keystroke_echo_p95_ms: round(pct(echoes, 95)),
        burst_50mb_ms: burstMs,
        burst_page_max_ms: round(pageMax),
        burst_page_median_ms: round(median(evaluations)),
        burst_server_rss_growth_mb: round(rssPeak - rssBefore),
        targets: { terminal_open_ms: 300, keystroke_echo_ms: 20, burst_server_rss_growth_mb: 64 },
      }),
    );
  } finally {
    await browser.close();
    server.kill("SIGTERM");
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : String(error));
  process.exit(1);
});
