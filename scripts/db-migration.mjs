#!/usr/bin/env node
// Schema workflow that works offline (Prisma cannot download its engines here).
//   node scripts/db-migration.mjs generate      prisma generate for SQLite and PostgreSQL (postinstall)
//   node scripts/db-migration.mjs new <name>    write the SQL migration of a schema change, for both databases
//   node scripts/db-migration.mjs check         fail when prisma/schema.prisma has changes without a migration
// prisma/schema.prisma is the one schema to edit; its PostgreSQL twin and the
// migration SQL are generated. Migration SQL comes from Prisma 6's Wasm schema
// engine (`migrate diff` between two datamodels needs no database and no download),
// installed on first use into node_modules/.cache/prisma-wasm.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const schemaPath = path.join(root, "prisma/schema.prisma");
const pgSchemaPath = path.join(root, "prisma/postgresql/schema.prisma");
const snapshotPath = path.join(root, "prisma/migrations/schema.snapshot.prisma");
const migrationDirs = { sqlite: path.join(root, "prisma/migrations"), postgresql: path.join(root, "prisma/postgresql/migrations") };
const wasmTool = path.join(root, "node_modules/.cache/prisma-wasm");
const PRISMA6 = "6.19.3";

const baseEnv = { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };

function postgresTwin(source) {
  return (
    "// GENERATED from prisma/schema.prisma by scripts/db-migration.mjs: do not edit.\n" +
    source
      .replace('provider = "sqlite"', 'provider = "postgresql"')
      .replace("../server/db/generated/sqlite", "../../server/db/generated/postgresql")
  );
}

function syncTwin() {
  const twin = postgresTwin(fs.readFileSync(schemaPath, "utf8"));
  fs.mkdirSync(path.dirname(pgSchemaPath), { recursive: true });
  if (!fs.existsSync(pgSchemaPath) || fs.readFileSync(pgSchemaPath, "utf8") !== twin) fs.writeFileSync(pgSchemaPath, twin);
}

function generate() {
  syncTwin();
  // `prisma generate` only checks that a schema engine file exists; it never runs it.
  const dummy = path.join(root, "node_modules/.cache/prisma-no-schema-engine");
  fs.mkdirSync(path.dirname(dummy), { recursive: true });
  fs.writeFileSync(dummy, "");
  const prisma = path.join(root, "node_modules/prisma/build/index.js");
  for (const schema of [schemaPath, pgSchemaPath]) {
    execFileSync(process.execPath, [prisma, "generate", "--schema", schema], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...baseEnv, PRISMA_SCHEMA_ENGINE_BINARY: dummy },
    });
  }
  console.log("prisma: generated the SQLite and PostgreSQL clients");
}

/** The schema in the form Prisma 6's diff wants: url in the datasource, no generator. */
function forDiff(source, provider) {
  return source
    .replace(/generator client \{[^}]*\}/, "")
    .replace('provider = "sqlite"', `provider = "${provider}"\n  url = env("DATABASE_URL")`);
}

function ensureWasmTool() {
  if (fs.existsSync(path.join(wasmTool, "node_modules/prisma/build/index.js"))) return;
  console.log(`installing prisma@${PRISMA6} (Wasm schema engine) into ${path.relative(root, wasmTool)} …`);
  fs.mkdirSync(wasmTool, { recursive: true });
  fs.writeFileSync(path.join(wasmTool, "package.json"), '{ "private": true }\n');
  execFileSync("npm", ["install", "--no-save", "--no-audit", "--no-fund", `prisma@${PRISMA6}`, `@prisma/adapter-better-sqlite3@${PRISMA6}`], {
    cwd: wasmTool,
    stdio: "inherit",
  });
  fs.writeFileSync(
    path.join(wasmTool, "prisma.config.ts"),
    [
      'import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";',
      "// engine: js makes Prisma 6 use its Wasm schema engine, which needs no download.",
      'export default { experimental: { adapter: true }, engine: "js", adapter: async () => new PrismaBetterSQLite3({ url: "file:./unused.db" }) };',
      "",
    ].join("\n"),
  );
  fs.writeFileSync(path.join(wasmTool, "no-query-engine"), "");
}

function diff(fromSource, toSource, provider) {
  const dir = fs.mkdtempSync(path.join(wasmTool, "diff-"));
  try {
    const args = [path.join(wasmTool, "node_modules/prisma/build/index.js"), "migrate", "diff", "--script"];
    if (fromSource === null) args.push("--from-empty");
    else {
      fs.writeFileSync(path.join(dir, "from.prisma"), forDiff(fromSource, provider));
      args.push("--from-schema-datamodel", path.join(dir, "from.prisma"));
    }
    fs.writeFileSync(path.join(dir, "to.prisma"), forDiff(toSource, provider));
    args.push("--to-schema-datamodel", path.join(dir, "to.prisma"));
    return execFileSync(process.execPath, args, {
      cwd: wasmTool,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...baseEnv, DATABASE_URL: "file:./unused.db", PRISMA_QUERY_ENGINE_LIBRARY: path.join(wasmTool, "no-query-engine") },
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function newMigration(name) {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: npm run db:migration -- <name in snake_case>");
  syncTwin();
  ensureWasmTool();
  const to = fs.readFileSync(schemaPath, "utf8");
  const from = fs.existsSync(snapshotPath) ? fs.readFileSync(snapshotPath, "utf8") : null;
  if (from === to) {
    console.log("prisma/schema.prisma has no change since the last migration");
    return;
  }
  const stamp = new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
  for (const [provider, dir] of Object.entries(migrationDirs)) {
    const sql = diff(from, to, provider);
    const target = path.join(dir, `${stamp}_${name}`);
    fs.mkdirSync(target, { recursive: true });
    fs.writeFileSync(path.join(target, "migration.sql"), sql);
    fs.writeFileSync(
      path.join(dir, "migration_lock.toml"),
      `# Please do not edit this file manually\n# It should be added in your version-control system (e.g., Git)\nprovider = "${provider}"\n`,
    );
    console.log(`wrote ${path.relative(root, target)}/migration.sql`);
  }
  fs.writeFileSync(snapshotPath, to);
  generate();
}

function check() {
  const to = fs.readFileSync(schemaPath, "utf8");
  const from = fs.existsSync(snapshotPath) ? fs.readFileSync(snapshotPath, "utf8") : null;
  if (from !== to) {
    console.error("prisma/schema.prisma changed without a migration: run `npm run db:migration -- <name>`");
    process.exit(1);
  }
  if (!fs.existsSync(pgSchemaPath) || fs.readFileSync(pgSchemaPath, "utf8") !== postgresTwin(to)) {
    console.error("prisma/postgresql/schema.prisma is stale: run `npm run db:generate`");
    process.exit(1);
  }
  console.log("prisma: schema and migrations agree");
}

const [command, arg] = process.argv.slice(2);
if (command === "generate") generate();
else if (command === "new") newMigration(arg);
else if (command === "check") check();
else {
  console.error("usage: node scripts/db-migration.mjs generate | new <name> | check");
  process.exit(2);
}
