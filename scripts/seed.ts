// `npm run seed [-- --tasks N --roots N --turns N --branches N]`: synthetic development data, labelled as such.
import { parseArgs } from "node:util";
import { env } from "../server/config/env";
import { createDb } from "../server/db/client";
import { migrate } from "../server/db/migrate";
import { seedDevelopmentData } from "../server/dev/seed";

const { values } = parseArgs({
  options: { tasks: { type: "string" }, roots: { type: "string" }, turns: { type: "string" }, branches: { type: "string" } },
});
const num = (v: string | undefined) => (v === undefined ? undefined : Number.parseInt(v, 10));
const config = env();
await migrate(config.DATABASE_URL);
const db = createDb(config.DATABASE_URL);
const result = await seedDevelopmentData(db, {
  tasks: num(values.tasks),
  rootsPerTask: num(values.roots),
  turnsPerRoot: num(values.turns),
  branchesPerTask: num(values.branches),
});
await db.$disconnect();
console.log(`seeded ${result.tasks} synthetic task(s) with ${result.turns} turns (labelled "seed data" in the dashboard)`);
