import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { ConfigError } from "../config/env";
import { sqliteFileOf } from "./url";

/**
 * Applies prisma/…/migrations/<name>/migration.sql in order, recording each in
 * Prisma's own `_prisma_migrations` table (same columns, same sha256 checksum), so
 * that `prisma migrate status|deploy` agree with what ran here. Prisma's migrate
 * commands need an engine binary that cannot be downloaded offline; this needs none.
 */

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

export type DatabaseKind = "sqlite" | "postgresql";

const CREATE_TABLE: Record<DatabaseKind, string> = {
  sqlite: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME,
    "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME,
    "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)`,
  postgresql: `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id" VARCHAR(36) PRIMARY KEY NOT NULL, "checksum" VARCHAR(64) NOT NULL, "finished_at" TIMESTAMPTZ,
    "migration_name" VARCHAR(255) NOT NULL, "logs" TEXT, "rolled_back_at" TIMESTAMPTZ,
    "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(), "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`,
};

export function migrationsDir(kind: DatabaseKind, root = process.cwd()): string {
  return path.join(root, kind === "sqlite" ? "prisma/migrations" : "prisma/postgresql/migrations");
}

export function readMigrations(dir: string): MigrationFile[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

function pending(all: MigrationFile[], applied: AppliedRow[]): MigrationFile[] {
  const done = new Map<string, AppliedRow>();
  for (const row of applied) {
    if (row.rolled_back_at) continue;
    if (!row.finished_at) {
      throw new ConfigError(
        `migration ${row.migration_name} failed earlier and left the database half-migrated: restore a backup, or fix it by hand and delete its row from _prisma_migrations`,
      );
    }
    done.set(row.migration_name, row);
  }
  for (const [name, row] of done) {
    const file = all.find((m) => m.name === name);
    if (file && file.checksum !== row.checksum) {
      throw new ConfigError(`migration ${name} was edited after it was applied: restore its original migration.sql`);
    }
  }
  return all.filter((m) => !done.has(m.name));
}

/** Apply pending SQLite migrations; creates the file (and its folder) when missing. Returns the names applied. */
export function migrateSqlite(file: string, migrations: MigrationFile[]): string[] {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 5000");
    db.exec(CREATE_TABLE.sqlite);
    const todo = pending(migrations, db.prepare(`SELECT * FROM "_prisma_migrations"`).all() as AppliedRow[]);
    const insert = db.prepare(
      `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES (?, ?, ?, ?, ?, 1)`,
    );
    for (const m of todo) {
      // One transaction per migration: a crash leaves it applied whole or not at all.
      db.transaction(() => {
        const started = Date.now();
        db.exec(m.sql);
        insert.run(randomUUID(), m.checksum, Date.now(), m.name, started);
      }).immediate();
    }
    return todo.map((m) => m.name);
  } finally {
    db.close();
  }
}

/** Apply pending PostgreSQL migrations under an advisory lock, so that two servers starting at once don't race. */
export async function migratePostgres(url: string, migrations: MigrationFile[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(72707369)");
    await client.query(CREATE_TABLE.postgresql);
    const { rows } = await client.query<AppliedRow>(`SELECT * FROM "_prisma_migrations"`);
    const todo = pending(migrations, rows);
    for (const m of todo) {
      await client.query("BEGIN");
      try {
        const started = new Date();
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, now(), $3, $4, 1)`,
          [randomUUID(), m.checksum, m.name, started],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
    return todo.map((m) => m.name);
  } finally {
    await client.query("SELECT pg_advisory_unlock(72707369)").catch(() => undefined);
    await client.end();
  }
}

/** Apply every pending migration for the database DATABASE_URL names. */
export async function migrate(url: string, root = process.cwd()): Promise<string[]> {
  if (url.startsWith("file:")) return migrateSqlite(sqliteFileOf(url), readMigrations(migrationsDir("sqlite", root)));
  try {
    return await migratePostgres(url, readMigrations(migrationsDir("postgresql", root)));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const where = new URL(url);
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(
      `DATABASE_URL: cannot use PostgreSQL at ${where.hostname}:${where.port || 5432}${where.pathname}: ${reason}`,
    );
  }
}
