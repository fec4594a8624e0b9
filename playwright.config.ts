import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT ?? 3107);
export const E2E_TOKEN = "e2e-token-0123456789abcdef";

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results",
  fullyParallel: false,
  workers: 1,
  reporter: [["list"]],
  timeout: 60_000,
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    viewport: { width: 1280, height: 800 },
    screenshot: "only-on-failure",
    launchOptions: {
      // Debian's Chromium: Playwright's own browser download cannot work offline.
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: [
    {
      command: "bash scripts/e2e-server.sh",
      url: `http://127.0.0.1:${PORT}/api/health`,
      env: { PORT: String(PORT), E2E_DIR: "./data/e2e" },
      reuseExistingServer: false,
      timeout: 120_000,
      stdout: "pipe",
    },
    {
      // The same build served on all interfaces, which requires a token.
      command: "bash scripts/e2e-server.sh",
      url: `http://127.0.0.1:${PORT + 1}/api/health?token=${E2E_TOKEN}`,
      env: { PORT: String(PORT + 1), HOST: "0.0.0.0", SPROUT_TOKEN: E2E_TOKEN, E2E_DIR: "./data/e2e-token" },
      reuseExistingServer: false,
      timeout: 120_000,
    },
  ],
});
