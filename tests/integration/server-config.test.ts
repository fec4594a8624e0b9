import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "sprout-config-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Start the real server entry with these settings and wait for it to exit. */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      env: { PATH: process.env.PATH, NODE_ENV: "production", DATABASE_URL: `file:${tmp}/sprout.db`, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.on("exit", (code) => resolve({ code, stderr, stdout }));
  });
}

function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe("bad configuration stops the server with one line saying what to fix", () => {
  it("an invalid DATABASE_URL", async () => {
    const r = await start({ DATABASE_URL: "mysql://root@localhost/x" });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe("sprout: DATABASE_URL must be file:<path> (SQLite) or postgresql://user:pass@host:port/db");
  });

  it("a PostgreSQL server that does not answer", async () => {
    const r = await start({ DATABASE_URL: "postgresql://u:p@127.0.0.1:1/db" });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^sprout: DATABASE_URL: cannot use PostgreSQL at 127\.0\.0\.1:1\/db: .*ECONNREFUSED/);
  });

  it("a non-loopback HOST without a token", async () => {
    const r = await start({ HOST: "0.0.0.0" });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      "sprout: HOST is 0.0.0.0, not a loopback address: set SPROUT_TOKEN (16+ characters) so that every request must carry it",
    );
  });

  it("a port in use", async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const r = await start({ PORT: String(port) });
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toBe(`sprout: port ${port} on 127.0.0.1 is in use: stop what uses it or set PORT to a free port`);
    } finally {
      blocker.close();
    }
  });

  it("a malformed number", async () => {
    const r = await start({ PORT: "eighty" });
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^sprout: PORT /);
  });
});
