/**
 * Killing what one exec started. The engine has no "kill exec" call, so every exec carries a unique
 * SPROUT_EXEC_ID in its environment, which its children inherit (also those that left its process group or
 * session), and we SIGKILL every process whose environment holds it.
 */
import { readdir, readFile } from "node:fs/promises";
import type Docker from "dockerode";
import { execInspect } from "./docker-schemas";

export const EXEC_ID_ENV = "SPROUT_EXEC_ID";
const MAX_ROUNDS = 5;

async function hostPidsWith(marker: Buffer): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const environ = await readFile(`/proc/${name}/environ`);
      if (environ.includes(marker)) found.push(Number(name));
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

/** Host side: works when the engine runs on this machine in our PID namespace (the usual local dockerd, as root). */
async function killOnHost(hostPid: number, token: string): Promise<boolean> {
  const marker = Buffer.from(`${EXEC_ID_ENV}=${token}\0`);
  try {
    const environ = await readFile(`/proc/${hostPid}/environ`);
    if (!environ.includes(marker)) return false;
  } catch {
    return false;
  }
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const pids = await hostPidsWith(marker);
    if (pids.length === 0) return true;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
  return true;
}

// Runs inside the container with the base's sh and grep; repeated rounds catch processes forked during a scan.
const IN_CONTAINER_KILL = `
for round in 1 2 3 4 5; do
  found=
  for d in /proc/[0-9]*; do
    p=\${d#/proc/}
    [ "$p" = "$$" ] && continue
    if grep -qxz "${EXEC_ID_ENV}=$1" "$d/environ" 2>/dev/null; then kill -9 "$p" 2>/dev/null && found=1; fi
  done
  [ -z "$found" ] && break
done`;

async function killInContainer(container: Docker.Container, token: string): Promise<void> {
  const exec = await container.exec({ Cmd: ["/bin/sh", "-c", IN_CONTAINER_KILL, "sprout-kill", token], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    stream.on("end", resolve);
    stream.on("close", resolve);
    stream.on("error", () => resolve());
    stream.resume();
  });
}

/** SIGKILLs the process tree of the exec tagged with `token`. Best effort: the caller still bounds its wait. */
export async function killExecTree(container: Docker.Container, exec: Docker.Exec, token: string): Promise<void> {
  try {
    const info = execInspect.parse(await exec.inspect());
    if (info.Pid > 0 && (await killOnHost(info.Pid, token))) return;
  } catch {
    // Fall through to the in-container way.
  }
  try {
    await killInContainer(container, token);
  } catch {
    // The container is gone or out of process slots; the caller gives up waiting after its grace period.
  }
}
