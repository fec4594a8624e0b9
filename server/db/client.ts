import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "./generated/sqlite/client";
import { PrismaClient as PostgresClient } from "./generated/postgresql/client";
import { env } from "../config/env";
import { singleton } from "../runtime/singleton";
import { sqliteFileOf } from "./url";

/**
 * Both generated clients come from one schema, so their APIs are the same; the
 * stores are typed against the SQLite one.
 */
export type Db = SqliteClient;

export function createDb(url: string): Db {
  if (url.startsWith("file:")) {
    const client = new SqliteClient({ adapter: new PrismaBetterSqlite3({ url: sqliteFileOf(url), timeout: 5000 }) });
    // WAL (set by the migrator, persistent) with synchronous=NORMAL: a commit is durable
    // against a process crash without an fsync per turn; only an OS crash can lose the last commits.
    void client.$queryRawUnsafe("PRAGMA synchronous = NORMAL").catch(() => undefined);
    return client;
  }
  return new PostgresClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db;
}

const holder = singleton("db", () => ({ client: undefined as Db | undefined }));

/** The process's database client, for DATABASE_URL. */
export function db(): Db {
  holder.client ??= createDb(env().DATABASE_URL);
  return holder.client;
}

/** Point the process at another database (tests, tools working on a second database). */
export function setDb(client: Db): void {
  holder.client = client;
}
