/**
 * The local driver's terminal and the terminal session's flow control, against real namespaces,
 * cgroups and overlayfs (root, helper built). The session is driven through a stand-in socket that
 * records what it was sent and acknowledges only when told to, as a slow page would.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { WebSocket } from "ws";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalDriver } from "../../server/sandbox/local/local-driver";
import type { Sandbox, SandboxDriver } from "../../server/sandbox/types";
import { commandLines, FakeSocket, screen, terminalSession } from "./terminal-fixtures";

let dataDir = "";
let driver: SandboxDriver;
let sandbox: Sandbox;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "sprout-terminal-test-"));
  driver = createLocalDriver({ dataDir, defaultLimits: { pids: 64, memoryBytes: 256 * 1024 ** 2 } });
  await driver.init();
  sandbox = await driver.create({ base: { kind: "host" }, workdir: "/work" });
});

afterEach(async () => {
  await driver.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("local driver pty", () => {
  it("runs a login shell on a tty of the sandbox, in its cgroups, without network, resizable", async () => {
    const pty = await sandbox.openPty({ cols: 100, rows: 30 });
    const s = screen(pty);
    await s.waitFor(/[#$] $/);
    pty.write("tty; stty size; pwd; grep -c sprout-local /proc/self/cgroup; ls /sys/class/net; echo END$((1+1))\n");
    await s.waitFor(/END2\r\n/);
    expect(s.text).toMatch(/\/dev\/pts\/0\r\n30 100\r\n\/work\r\n3\r\nlo\r\nEND2/);
    pty.resize(120, 40);
    pty.write("stty size; echo R$((1+1))\n");
    await s.waitFor(/R2\r\n/);
    expect(s.text).toMatch(/40 120\r\nR2/);
    pty.kill();
  });

  it("Ctrl-C interrupts the foreground program and full-screen programs draw", async () => {
    const pty = await sandbox.openPty({ cols: 80, rows: 24 });
    const s = screen(pty);
    await s.waitFor(/[#$] $/);
    pty.write("sleep 100\n");
    await s.waitFor(/sleep 100\r\n/);
    // Ctrl-C before the shell has handed the terminal to the program would be lost.
    await expect.poll(() => commandLines(sandbox), { timeout: 10_000 }).toContain("sleep 100");
    pty.write("\x03");
    pty.write("echo AFTER$((1+1))\n");
    await s.waitFor(/AFTER2\r\n/, 5000);
    pty.write("top -b -n 1 | head -1; echo T$((1+1))\n");
    await s.waitFor(/T2\r\n/);
    pty.write("less /etc/os-release\n");
    // eslint-disable-next-line no-control-regex -- the alternate screen's escape sequence
    await s.waitFor(/\x1b\[\?1049h/);
    pty.write("q");
    pty.write("echo Q$((1+1))\n");
    await s.waitFor(/Q2\r\n/);
    pty.kill();
  });

  it("keeps the process limit and exits with the shell", async () => {
    const pty = await sandbox.openPty({ cols: 80, rows: 24 });
    const s = screen(pty);
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    await s.waitFor(/[#$] $/);
    // dash reports a failed fork at once (bash would retry with back-off).
    pty.write("sh -c 'for i in $(seq 1 100); do sleep 2 & done; wait' 2>&1 | grep -m1 -c -i fork; echo P$((1+1))\n");
    await s.waitFor(/P2\r\n/, 30_000);
    expect(s.text).toMatch(/\r1\r\nP2/);
    pty.write("exit 3\n");
    expect(await exited).toBe(3);
  });

  it("stops the shell when its reader pauses: the pty fills and `yes` blocks", async () => {
    const pty = await sandbox.openPty({ cols: 80, rows: 24 });
    let bytes = 0;
    pty.onData((c) => {
      bytes += c.length;
    });
    pty.write("yes\n");
    await new Promise((r) => setTimeout(r, 300));
    pty.pause();
    await new Promise((r) => setTimeout(r, 200));
    const atPause = bytes;
    await new Promise((r) => setTimeout(r, 500));
    // Only what was already in flight arrives (the socket and relay buffers), nothing more.
    expect(bytes - atPause).toBeLessThan(1024 * 1024);
    pty.resume();
    await new Promise((r) => setTimeout(r, 200));
    expect(bytes).toBeGreaterThan(atPause);
    pty.write("\x03");
    pty.kill();
  });

  it("a checkpoint ends the shell (every process of the sandbox)", async () => {
    const pty = await sandbox.openPty({ cols: 80, rows: 24 });
    const s = screen(pty);
    const exited = new Promise<number>((resolve) => pty.onExit(resolve));
    await s.waitFor(/[#$] $/);
    pty.write("echo kept > /work/file.txt; echo W$((1+1))\n");
    await s.waitFor(/W2\r\n/);
    await sandbox.checkpoint();
    expect(await exited).toBe(137);
    expect((await sandbox.readFile("/work/file.txt")).toString()).toBe("kept\n");
    const again = await sandbox.openPty({ cols: 80, rows: 24 });
    const s2 = screen(again);
    again.write("cat /work/file.txt; echo C$((1+1))\n");
    await s2.waitFor(/C2\r\n/);
    expect(s2.text).toMatch(/kept\r\n/);
    again.kill();
  });
});

describe("terminal session flow control", () => {
  const session = () => terminalSession(sandbox, "local", "/work");

  it("a page that does not acknowledge receives a bounded amount; acknowledging lets more through", async () => {
    const s = session();
    await s.start();
    const ws = new FakeSocket();
    s.attach(ws as unknown as WebSocket);
    ws.message({ type: "input", data: "yes 0123456789012345678901234567890123456789\r" });
    await new Promise((r) => setTimeout(r, 1000));
    const first = ws.binaryBytes;
    expect(first).toBeGreaterThan(256 * 1024);
    // 1 MiB high-water mark, plus one batch and what was in flight when the pause took effect.
    expect(first).toBeLessThan(1024 * 1024 + 256 * 1024);
    await new Promise((r) => setTimeout(r, 500));
    expect(ws.binaryBytes - first).toBeLessThan(64 * 1024);
    ws.message({ type: "ack", bytes: ws.binaryBytes });
    await new Promise((r) => setTimeout(r, 500));
    expect(ws.binaryBytes).toBeGreaterThan(first + 256 * 1024);
    await s.end("test over");
  });

  it("a page that reattaches gets the recent output replayed (at most the ring's 256 KiB)", async () => {
    const s = session();
    await s.start();
    const ws = new FakeSocket();
    s.attach(ws as unknown as WebSocket);
    ws.message({ type: "input", data: "seq 1 100000; echo DONE$((1+1))\r" });
    for (let i = 0; i < 200 && ws.binaryBytes < 500_000; i++) {
      ws.message({ type: "ack", bytes: ws.binaryBytes });
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 300));
    ws.message({ type: "ack", bytes: ws.binaryBytes });
    await new Promise((r) => setTimeout(r, 300));
    ws.close();
    const again = new FakeSocket();
    let replay = "";
    again.send = (data: Buffer | string, _o?: unknown, cb?: () => void) => {
      if (typeof data === "string") again.json.push(JSON.parse(data) as { type: string });
      else replay += data.toString();
      cb?.();
    };
    s.attach(again as unknown as WebSocket);
    expect(again.json[0]?.type).toBe("ready");
    expect(replay.length).toBeLessThanOrEqual(256 * 1024);
    expect(replay).toMatch(/100000\r\nDONE2\r\n/);
    expect(s.info().attached).toBe(true);
    await s.end("test over");
  });
});
