// Prisma CLI configuration. The schema you edit is prisma/schema.prisma (SQLite);
// prisma/postgresql/ holds its generated PostgreSQL twin. DATABASE_URL picks which
// one the ordinary Prisma commands (migrate status/deploy, studio) work on.
import { defineConfig } from "prisma/config";

const url = process.env.DATABASE_URL ?? "file:./data/sprout.db";
const postgres = /^postgres(ql)?:\/\//.test(url);

export default defineConfig({
  schema: postgres ? "prisma/postgresql/schema.prisma" : "prisma/schema.prisma",
  migrations: { path: postgres ? "prisma/postgresql/migrations" : "prisma/migrations" },
  datasource: { url },
});
