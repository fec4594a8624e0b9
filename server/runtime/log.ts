import { env } from "../config/env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  let threshold: Level = "info";
  try {
    threshold = env().SPROUT_LOG_LEVEL;
  } catch {
    // settings not valid yet: log at the default level
  }
  if (LEVELS[level] < LEVELS[threshold]) return;
  const line = fields ? `${message} ${JSON.stringify(fields)}` : message;
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`[sprout] ${line}\n`);
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};
