// `npm run bench -- <name>`: runs bench/<name>.ts; its last line is one JSON object.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const name = process.argv[2];
const dir = import.meta.dirname;
const available = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.includes("-"))
  .map((f) => f.replace(/\.ts$/, ""));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <${available.join("|")}>\n`);
  process.exit(2);
}
const result = spawnSync(process.execPath, ["--import", "tsx", path.join(dir, `${name}.ts`), ...process.argv.slice(3)], { stdio: "inherit" });
process.exit(result.status ?? 1);
