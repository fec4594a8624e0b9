#!/usr/bin/env node
// `npm start`: build the dashboard when the sources changed since the last build,
// then run the one server process (Next.js + WebSockets) on the embedded default.
import { spawnSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const stamp = path.join(root, ".next", "sprout-source-hash");
const SOURCES = ["app", "components", "server", "public", "next.config.js", "postcss.config.mjs", "package-lock.json", "tsconfig.json"];

function walk(p, out) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) if (name !== "node_modules") walk(path.join(p, name), out);
  } else out.push(`${path.relative(root, p)}:${st.size}:${st.mtimeMs}`);
}

function sourceHash() {
  const files = [];
  for (const s of SOURCES) walk(path.join(root, s), files);
  return createHash("sha256").update(files.join("\n")).digest("hex");
}

const hash = sourceHash();
const built = fs.existsSync(path.join(root, ".next", "BUILD_ID")) && fs.existsSync(stamp) && fs.readFileSync(stamp, "utf8") === hash;
if (!built) {
  console.log("Building the dashboard (once per change, ~30 s)…");
  const result = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) {
    console.error("sprout: the dashboard build failed (see above); run `npm run build` to see its full output");
    process.exit(1);
  }
  fs.writeFileSync(stamp, hash);
}

const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "server/main.ts"), ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env: { NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...process.env },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
