/**
 * The docker driver's terminal (an exec with a TTY, its raw stream as the terminal's bytes) against a
 * real engine: the login shell's prompt, echo, resize and Ctrl-C, directly and through a terminal
 * session as the page drives it. beforeAll installs/starts dockerd when this machine has none
 * (scripts/ensure-docker.sh) and builds the base image on first use.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import Docker from "dockerode";
import type { WebSocket } from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createDockerDriver } from "@/server/sandbox/docker/docker-driver";
import type { Sandbox, SandboxDriver } from "@/server/sandbox/types";
import { commandLines, FakeSocket, screen, terminalSession, type Tail } from "./terminal-fixtures";

const repo = path.resolve(import.meta.dirname, "../..");
const SCOPE = "integration-test-terminal";
const BASE = { kind: "image", ref: "sprout-base:bookworm" } as const;

let driver: SandboxDriver;
const docker = new Docker();
const opened: Sandbox[] = [];

async function sandbox(): Promise<Sandbox> {
  const s = await driver.create({ base: BASE, workdir: "/root", labels: { test: "docker-terminal" } });
  opened.push(s);
  return s;
}


let asked = 0;
/** The size the shell's tty has now ("rows cols"), asked with `stty size`. */
async function ttySize(write: (line: string) => void, out: Tail): Promise<string | undefined> {
  const n = ++asked;
  write(`stty size; echo SIZE${n}-$((40+2))`);
  await out.waitFor(new RegExp(`SIZE${n}-42\r\n`));
  return new RegExp(`(\\d+ \\d+)\r\nSIZE${n}-42`).exec(out.text)?.[1];
}

beforeAll(() => {
  execFileSync("bash", [path.join(repo, "scripts/ensure-docker.sh")], { stdio: ["ignore", "inherit", "inherit"] });
  // The base image is built from this rootfs when the engine does not have it yet.
  execFileSync("bash", [path.join(repo, "scripts/ensure-rootfs.sh")], { stdio: ["ignore", "pipe", "inherit"] });
  driver = createDockerDriver({ scope: SCOPE });
  return driver.init();
}, 15 * 60_000);

afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.destroy()));
});

afterAll(async () => {
  await driver?.close();
  const left = await docker.listContainers({ all: true, filters: { label: [`sprout.scope=${SCOPE}`] } });
  expect(left.map((c) => c.Id)).toEqual([]);
});

describe("docker driver pty", () => {
  it("runs the login shell on a TTY: echo, resize, Ctrl-C, exit code", async () => {
    const s = await sandbox();
    const pty = await s.openPty({ cols: 100, rows: 30 });
    const out = screen(pty);
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    await out.waitFor(/[#$] $/);

    pty.write("tty; stty size; pwd; echo E$((40+2))\n");
    await out.waitFor(/E42\r\n/);
    expect(out.text).toMatch(/\/dev\/pts\/\d+\r\n30 100\r\n\/root\r\nE42/);

    pty.resize(120, 40);
    // The resize is asynchronous (an engine request): ask until the shell sees it, not after a fixed time.
    await expect.poll(() => ttySize((line) => pty.write(`${line}\n`), out), { timeout: 10_000 }).toBe("40 120");

    pty.write("sleep 100\n");
    // Ctrl-C before the shell has handed the terminal to the program would interrupt the shell instead.
    await expect.poll(() => commandLines(s), { timeout: 10_000 }).toContain("sleep 100");
    const interrupted = Date.now();
    pty.write("\x03");
    pty.write("echo AFTER$((40+2)) $?\n");
    await out.waitFor(/AFTER42 130\r\n/, 10_000);
    expect(Date.now() - interrupted).toBeLessThan(10_000);

    pty.write("exit 3\n");
    expect(await exited).toBe(3);
  }, 60_000);

  it("kill ends the shell and what it started", async () => {
    const s = await sandbox();
    const pty = await s.openPty({ cols: 80, rows: 24 });
    const out = screen(pty);
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    await out.waitFor(/[#$] $/);
    pty.write("sleep 1234 & echo STARTED$((40+2))\n");
    await out.waitFor(/STARTED42\r\n/);
    expect(await commandLines(s)).toContain("sleep 1234");
    pty.kill();
    await exited;
    expect(await commandLines(s)).not.toContain("sleep 1234");
  }, 60_000);
});

describe("terminal session on a docker sandbox", () => {
  it("streams the prompt and echo to the page, applies its resize, and Ctrl-C reaches the program", async () => {
    const s = await sandbox();
    const session = terminalSession(s, "docker", "/root");
    await session.start();
    const ws = new FakeSocket();
    session.attach(ws as unknown as WebSocket);
    expect(ws.json[0]?.type).toBe("ready");
    await ws.output.waitFor(/[#$] $/);

    ws.message({ type: "resize", cols: 132, rows: 43 });
    await expect.poll(() => ttySize((line) => ws.message({ type: "input", data: `${line}\r` }), ws.output), { timeout: 10_000 }).toBe("43 132");

    ws.message({ type: "input", data: "sleep 100\r" });
    await expect.poll(() => commandLines(s), { timeout: 10_000 }).toContain("sleep 100");
    ws.message({ type: "input", data: "\x03" });
    ws.message({ type: "input", data: "echo BACK$((40+2)) $?\r" });
    await ws.output.waitFor(/BACK42 130\r\n/, 10_000);
    await session.end("test over");
  }, 60_000);
});
