#!/usr/bin/env node
// Builds the local sandbox driver's helper (server/sandbox/local/native) with gcc + make.
// Offline, no npm dependency. On machines other than Linux it only warns: the local driver
// then reports DriverUnavailableError at init instead of breaking `npm install`.
import { spawnSync } from "node:child_process";
import path from "node:path";

const dir = path.join(import.meta.dirname, "..", "server", "sandbox", "local", "native");
if (process.platform !== "linux") {
  console.warn(`build-native: skipped on ${process.platform} (the local sandbox driver needs Linux)`);
  process.exit(0);
}
const r = spawnSync("make", ["-C", dir], { stdio: "inherit" });
if (r.status !== 0) {
  const strict = process.argv.includes("--strict");
  console.error(`build-native: make failed (${r.error?.message ?? `exit ${r.status}`}); needs gcc and make`);
  process.exit(strict ? 1 : 0);
}
