import path from "node:path";

/** The file a `file:` DATABASE_URL names, resolved against the working directory (the repo root). */
export function sqliteFileOf(url: string): string {
  return path.resolve(url.replace(/^file:/, ""));
}
