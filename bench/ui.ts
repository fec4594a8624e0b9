/**
 * UI benchmark: the production build with a 10,000-turn task, driven by Chromium.
 *
 *   npx next build && npx tsx bench/ui.ts [--port 3127] [--runs 3]
 *
 * Measures
 *   tree_first_render_ms  navigation start → the tree is hydrated, laid out and drawn (median of runs)
 *   pan_frame_p95_ms      95th percentile of requestAnimationFrame intervals while dragging the tree
 *   tree_api_ms           GET /api/tasks/:id/tree, median of 9 after one warm-up
 *   inspector_open_ms     pointer down on a turn → its 1 MB observation is on screen (median of runs, cold cache)
 * Prints progress lines, then one JSON object as the last line.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, rmSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "@playwright/test";
import { arg, median, pct, round } from "./bench-util";
import { seedUiBench } from "./ui-seed";

const root = path.resolve(import.meta.dirname, "..");
const PORT = arg("port", 3127);
const RUNS = arg("runs", 3);
const BASE = `http://127.0.0.1:${PORT}`;
const log = (s: string) => console.log(s);

async function waitForHealth(server: ChildProcess): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    try {
      if ((await fetch(`${BASE}/api/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("the server did not answer /api/health within 120 s");
}

async function treeReady(page: Page): Promise<number> {
  await page.waitForSelector('[data-testid="task-tree"][data-ready="true"] [data-kind]', { timeout: 60_000 });
  // One more frame so that what was committed has been painted.
  return page.evaluate<number>(`new Promise((r) => requestAnimationFrame(() => r(performance.now())))`);
}

/** Where the time of a page load went, from the Navigation Timing entry. */
async function loadPhases(page: Page): Promise<string> {
  return page.evaluate<string>(`(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return "first byte " + Math.round(n.responseStart) + " ms, HTML done " + Math.round(n.responseEnd) + " ms (" + Math.round(n.transferSize / 1024) + " KiB), DOMContentLoaded " + Math.round(n.domContentLoadedEventEnd) + " ms";
  })()`);
}

/** Drags across the tree with the mouse while recording every animation frame's interval. */
async function pan(page: Page, moves: number, dx: number, dy: number): Promise<number[]> {
  const box = (await page.getByTestId("tree-box").boundingBox())!;
  // Scripts for the page are strings: tsx's transform would wrap named functions in a helper the page lacks.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__on = true;
    window.__last = performance.now();
    const tick = (t) => {
      window.__frames.push(t - window.__last);
      window.__last = t;
      if (window.__on) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  let x = box.x + box.width / 2;
  let y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  for (let i = 0; i < moves; i++) {
    x += dx;
    y += dy;
    if (x < box.x + 20 || x > box.x + box.width - 20 || y < box.y + 20 || y > box.y + box.height - 20) {
      // Pick the tree up again at the centre, like a hand does, and keep going the same way.
      await page.mouse.up();
      x = box.x + box.width / 2;
      y = box.y + box.height / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
    }
    await page.mouse.move(x, y);
  }
  await page.mouse.up();
  return page.evaluate<number[]>(`(() => {
    window.__on = false;
    return window.__frames.slice(1);
  })()`);
}

async function main(): Promise<void> {
  if (!existsSync(path.join(root, ".next", "BUILD_ID"))) throw new Error("no production build: run `npx next build` first");
  const dir = path.join(root, "data", "bench-ui");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const databaseUrl = `file:${path.join(dir, "sprout.db")}`;
  log("seeding a 10,000-turn task …");
  const t0 = performance.now();
  const data = await seedUiBench(databaseUrl, root);
  log(`seeded ${data.turns} turns in ${Math.round(performance.now() - t0)} ms; 1 MB observation on turn ${data.bigTurnId}`);

  const server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: { ...process.env, PORT: String(PORT), HOST: "127.0.0.1", DATABASE_URL: databaseUrl, SPROUT_DATA_DIR: dir, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", SPROUT_TOKEN: "" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    await waitForHealth(server);
    log("server up");

    const api: number[] = [];
    let treeBytes = 0;
    for (let i = 0; i < 10; i++) {
      const s = performance.now();
      const res = await fetch(`${BASE}/api/tasks/${data.taskId}/tree`);
      const body = await res.arrayBuffer();
      if (i > 0) api.push(performance.now() - s);
      treeBytes = body.byteLength;
    }
    log(`tree API: median ${round(median(api))} ms, ${(treeBytes / 1024).toFixed(0)} KiB`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const renders: number[] = [];
    let nodes = 0;
    for (let i = 0; i <= RUNS; i++) {
      await page.goto(`${BASE}/tasks/${data.taskId}`, { waitUntil: "commit" });
      const ms = await treeReady(page);
      nodes = Number(await page.getByTestId("task-tree").getAttribute("data-nodes"));
      // The first load warms the server's caches; it is reported apart.
      if (i === 0) log(`first render (cold server): ${round(ms)} ms`);
      else renders.push(ms);
      log(`  load ${i}: ready at ${round(ms)} ms; ${await loadPhases(page)}`);
    }
    log(`first render: median ${round(median(renders))} ms over ${RUNS} loads (${nodes} nodes mounted)`);

    // Pan at the fitted zoom, then zoomed in to 1:1 where long drags keep mounting new nodes.
    const frames = await pan(page, 120, 9, 4);
    const box = (await page.getByTestId("tree-box").boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
    await page.waitForTimeout(200);
    frames.push(...(await pan(page, 240, -14, -9)));
    const panP95 = pct(frames, 95);
    log(`pan: ${frames.length} frames, p50 ${round(pct(frames, 50))} ms, p95 ${round(panP95)} ms, max ${round(Math.max(...frames))} ms`);

    const opens: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Open the parent first (centres the view there), close it, then click the big turn with a cold cache.
      await page.goto(`${BASE}/tasks/${data.taskId}?turn=${data.neighbourTurnId}`);
      await treeReady(page);
      await page.getByTestId("inspector-title").waitFor();
      await page.keyboard.press("Escape");
      await page.getByTestId("inspector").waitFor({ state: "detached" });
      const node = page.locator(`[data-key="${data.bigTurnId}"]`);
      await node.waitFor();
      await page.evaluate(`(() => {
        document.addEventListener("pointerdown", () => (window.__down = performance.now()), { capture: true, once: true });
        window.__shown = new Promise((resolve) => {
          const check = () => {
            const el = document.querySelector('[data-testid="observation"]');
            if (el && Number(el.getAttribute("data-rows")) > 10000 && el.textContent.includes("some/long/path")) resolve(performance.now());
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        });
      })()`);
      await node.click();
      const ms = await page.evaluate<number>(`window.__shown.then((t) => t - window.__down)`);
      opens.push(ms);
    }
    log(`inspector open with a 1 MB observation: median ${round(median(opens))} ms (${opens.map(round).join(", ")})`);
    await page.close();

    console.log(
      JSON.stringify({
        tree_first_render_ms: round(median(renders)),
        pan_frame_p95_ms: round(panP95),
        tree_api_ms: round(median(api)),
        inspector_open_ms: round(median(opens)),
        turns: data.turns,
        mounted_nodes: nodes,
        tree_api_kib: Math.round(treeBytes / 1024),
        observation_bytes: data.bigObservationBytes,
      }),
    );
  } finally {
    await browser?.close();
    server.kill("SIGTERM");
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
