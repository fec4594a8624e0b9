import fs from "node:fs/promises";
import path from "node:path";
import type { Sandbox } from "./types";

/** Copy a host directory's files into the sandbox under `target`, keeping their modes. Returns the number of files. */
export async function copyDirInto(sandbox: Sandbox, hostDir: string, target: string): Promise<number> {
  const entries = await fs.readdir(hostDir, { recursive: true, withFileTypes: true });
  const dirs = new Set<string>([target]);
  const files: { from: string; to: string }[] = [];
  for (const e of entries) {
    const from = path.join(e.parentPath, e.name);
    const to = path.posix.join(target, path.relative(hostDir, from).split(path.sep).join("/"));
    if (e.isDirectory()) dirs.add(to);
    else if (e.isFile()) {
      dirs.add(path.posix.dirname(to));
      files.push({ from, to });
    }
  }
  const mk = await sandbox.exec(["mkdir", "-p", ...dirs], { timeoutMs: 30_000 });
  if (mk.exitCode !== 0) throw new Error(`cannot create ${target} in the sandbox: ${mk.stderr.trim()}`);
  for (const f of files) {
    const [data, stat] = await Promise.all([fs.readFile(f.from), fs.stat(f.from)]);
    await sandbox.writeFile(f.to, data, { mode: stat.mode & 0o777 });
  }
  return files.length;
}

/** Copy a host file or directory to `target` in the sandbox (a directory's contents go into `target`, as Docker's COPY does). */
export async function copyPathInto(sandbox: Sandbox, hostPath: string, target: string): Promise<number> {
  const stat = await fs.stat(hostPath);
  if (stat.isDirectory()) return copyDirInto(sandbox, hostPath, target);
  const to = target.endsWith("/") ? path.posix.join(target, path.basename(hostPath)) : target;
  await sandbox.exec(["mkdir", "-p", path.posix.dirname(to)], { timeoutMs: 10_000 });
  await sandbox.writeFile(to, await fs.readFile(hostPath), { mode: stat.mode & 0o777 });
  return 1;
}
