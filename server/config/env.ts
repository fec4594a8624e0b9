import path from "node:path";
import { z } from "zod";

/** Thrown when a setting is invalid; the server prints its message as one line and exits. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost", "[::1]"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const databaseUrl = z
  .string()
  .trim()
  .refine((v) => /^file:.+/.test(v) || /^postgres(ql)?:\/\/.+/.test(v), {
    message: "must be file:<path> (SQLite) or postgresql://user:pass@host:port/db",
  })
  .refine((v) => !/^postgres/.test(v) || URL.canParse(v), { message: "is not a valid postgresql:// URL" });

const schema = z
  .object({
    HOST: z.string().trim().min(1).default("127.0.0.1"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATABASE_URL: databaseUrl.default("file:./data/sprout.db"),
    SPROUT_DATA_DIR: z.string().trim().min(1).default("./data"),
    SPROUT_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    SPROUT_ALLOWED_ORIGINS: z
      .string()
      .optional()
      .transform((v) => (v ? v.split(",").map((s) => s.trim()).filter(Boolean) : [])),
    SPROUT_DRIVER: z.enum(["local", "docker"]).default("local"),
    SPROUT_LOCAL_HELPERS: z.coerce.number().int().min(1).max(16).optional(),
    SPROUT_LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
    SPROUT_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
    SPROUT_POLICY: z.enum(["demo", "openai"]).default("demo"),
    SPROUT_DEMO_MISTAKE_RATE: z.coerce.number().min(0).max(1).default(0.25),
    OPENAI_BASE_URL: z.url({ message: "must be a URL such as http://127.0.0.1:8000/v1" }).optional(),
    OPENAI_API_KEY: z.string().optional(),
    SPROUT_MODEL: z.string().min(1).optional(),
    SPROUT_TEMPERATURE: z.coerce.number().min(0).max(2).default(0.7),
    SPROUT_MAX_COMPLETION_TOKENS: z.coerce.number().int().positive().optional(),
    SPROUT_MAX_STEPS: z.coerce.number().int().min(1).default(60),
    SPROUT_TERMINAL_IDLE_MS: z.coerce.number().int().min(1000).default(30 * 60_000),
    SPROUT_MAX_TERMINALS: z.coerce.number().int().min(1).max(256).default(8),
    SPROUT_TERMINAL_GRACE_MS: z.coerce.number().int().min(0).default(30_000),
  })
  .superRefine((env, ctx) => {
    if (env.SPROUT_POLICY === "openai" && (!env.OPENAI_BASE_URL || !env.SPROUT_MODEL)) {
      ctx.addIssue({ code: "custom", path: ["SPROUT_POLICY"], message: "is openai: set OPENAI_BASE_URL (e.g. http://127.0.0.1:8000/v1) and SPROUT_MODEL" });
    }
    if (!isLoopbackHost(env.HOST) && !env.SPROUT_TOKEN) {
      ctx.addIssue({
        code: "custom",
        path: ["HOST"],
        message: `is ${env.HOST}, not a loopback address: set SPROUT_TOKEN (16+ characters) so that every request must carry it`,
      });
    }
  });

export type Env = z.infer<typeof schema> & { dataDir: string; databaseKind: "sqlite" | "postgresql" };

/** Validate settings once; every later read goes through the returned object. */
export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const emptyAsUnset = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== ""));
  const result = schema.safeParse(emptyAsUnset);
  if (!result.success) {
    const issue = result.error.issues[0];
    const key = issue?.path.join(".") ?? "environment";
    throw new ConfigError(`${key} ${issue?.message ?? "is invalid"}`);
  }
  const env = result.data;
  return {
    ...env,
    dataDir: path.resolve(env.SPROUT_DATA_DIR),
    databaseKind: env.DATABASE_URL.startsWith("file:") ? "sqlite" : "postgresql",
  };
}

let cached: Env | undefined;

/** The process's settings, parsed on first use. */
export function env(): Env {
  cached ??= parseEnv();
  return cached;
}
