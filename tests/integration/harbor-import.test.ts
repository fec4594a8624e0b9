/**
 * Importing a Harbor / Terminal-Bench 2 task directory, end to end: the task row, the copy in the
 * data dir, and the fixture's solution passing its own tests (and the start failing them) in
 * real sandboxes of both drivers. Needs root, the local driver's helper, and dockerd (started by
 * scripts/ensure-docker.sh; the base image is built by scripts/ensure-rootfs.sh the first time).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, setDb, type Db } from "@/server/db/client";
import { migrate } from "@/server/db/migrate";
import { createDockerDriver } from "@/server/sandbox/docker/docker-driver";
import { createLocalDriver } from "@/server/sandbox/local/local-driver";
import type { SandboxDriver } from "@/server/sandbox/types";
import { prepareStart } from "@/server/rollout/run-rollout";
import { checkSolution } from "@/server/tasks/import/check-solution";
import { HarborTaskError, importHarborTask } from "@/server/tasks/import/import-harbor-task";
import { getTask, listTasks, upsertTask } from "@/server/tasks/task-store";

const repo = path.resolve(import.meta.dirname, "../..");
const FIXTURES = path.join(repo, "tests/fixtures/harbor");
const DOCKER_SCOPE = "test-harbor";
const TEST_COUNT = 11;

let tmp = "";
let dataDir = "";
let client: Db;

/** A private copy of a fixture, so a test may edit or delete it. */
async function fixtureCopy(name: string, as = name): Promise<string> {
  const dir = path.join(tmp, "sources", as);
  await fs.cp(path.join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

async function listDir(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => []);
}

beforeAll(async () => {
  // Labelled for leftovers; env() reads SPROUT_DATA_DIR on first use, which is below.
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), "sprout-harbor-test-"));
  dataDir = path.join(tmp, "data");
  process.env.SPROUT_DATA_DIR = dataDir;
  const url = `file:${tmp}/sprout.db`;
  await migrate(url);
  client = createDb(url);
  setDb(client);
});

afterAll(async () => {
  await client?.$disconnect();
  await fs.rm(tmp, { recursive: true, force: true });
});

describe("importHarborTask", () => {
  it("imports the task and keeps a copy that outlives its source", async () => {
    const source = await fixtureCopy("hello-api");
    const { task, warnings } = await importHarborTask(source);
    const copy = path.join(dataDir, "tasks/hello-api");
    const env = path.join(copy, "environment");

    expect(task).toMatchObject({ name: "hello-api", title: "Fix the hello API", source: "imported" });
    expect(task.instruction).toMatch(/^# Fix the hello API\n\nThe small HTTP-style API/);
    expect(task.environment).toEqual({
      base: { kind: "image", ref: "python:3.12-slim-bookworm" },
      workdir: "/app",
      env: { PYTHONDONTWRITEBYTECODE: "1", GREETING: "Hello", APP_DATA: "/app/data" },
      copies: [
        { from: path.join(env, "api.py"), to: "/app/" },
        { from: path.join(env, "config.json"), to: "/app/" },
        { from: path.join(env, "seed"), to: "/app/seed/" },
      ],
      setup: [
        // Every RUN after it sees ARG APP_HOME, which the final image does not keep.
        'export APP_HOME=/app && mkdir -p "$APP_DATA" &&     cp seed/users.json "$APP_DATA/users.json" &&     echo "seeded for $APP_HOME" > "$APP_DATA/.seeded"',
        `export APP_HOME=/app && python3 -c 'import json; json.load(open('\\''/app/config.json'\\''))'`,
      ],
    });
    expect(task.verifier).toEqual({ command: "bash /tests/test.sh", timeoutMs: 60_000, format: "exit-code", testsDir: path.join(copy, "tests") });
    expect(task.metadata).toMatchObject({
      importedFrom: source,
      taskDir: copy,
      difficulty: "easy",
      category: "debugging",
      tags: ["python", "api", "bugfix"],
      solutionPath: path.join(copy, "solution/solve.sh"),
      dockerBase: "python:3.12-slim-bookworm",
      agentTimeoutMs: 600_000,
    });
    expect(warnings).toEqual([
      "environment/Dockerfile line 9: COPY --chown ignored: files keep their modes from the task directory and belong to root",
      "environment/Dockerfile line 18: CMD ignored: the sandbox starts no main process; a service the tests need must be started by the task's own scripts",
    ]);
    expect(await getTask(task.id)).toEqual(task);
    expect((await listDir(copy)).sort()).toEqual(["environment", "instruction.md", "solution", "task.toml", "tests"]);

    // The source may go away: everything the task needs now lives in the data dir.
    await fs.rm(source, { recursive: true });
    expect(await fs.readFile(path.join(copy, "tests/test.sh"), "utf8")).toMatch(/reward\.txt/);
  });

  it("updates the same task when imported again, and replaces the copy", async () => {
    const before = (await listTasks()).find((t) => t.name === "hello-api");
    const source = await fixtureCopy("hello-api");
    await fs.writeFile(path.join(source, "task.toml"), (await fs.readFile(path.join(source, "task.toml"), "utf8")).replace("timeout_sec = 60.0", "timeout_sec = 90.0"));
    const { task } = await importHarborTask(source, { baseOverride: { kind: "host" } });
    expect(task.id).toBe(before?.id);
    expect(task.environment.base).toEqual({ kind: "host" });
    expect(task.verifier.timeoutMs).toBe(90_000);
    expect(await fs.readFile(path.join(dataDir, "tasks/hello-api/task.toml"), "utf8")).toMatch(/timeout_sec = 90\.0/);
    // No staging directories left beside the copy.
    expect(await listDir(path.join(dataDir, "tasks"))).toEqual(["hello-api"]);
  });

  describe("refuses a bad directory with a clear error and writes nothing", () => {
    const cases: [string, () => Promise<string>, RegExp][] = [
      ["instruction.md is missing", () => fixtureCopy("missing-instruction"), /missing-instruction: missing instruction\.md \(the task's instruction to the agent\)$/],
      ["task.toml is not TOML", () => fixtureCopy("malformed-toml"), /^task\.toml: invalid TOML at line 3, column \d+: /],
      [
        "task.toml has a wrong type",
        async () => {
          const dir = await fixtureCopy("hello-api", "bad-type");
          await fs.writeFile(path.join(dir, "task.toml"), '[verifier]\ntimeout_sec = "soon"\n');
          return dir;
        },
        /^task\.toml: verifier\.timeout_sec: .*expected number, received string/,
      ],
      [
        "a COPY source does not exist",
        async () => {
          const dir = await fixtureCopy("hello-api", "bad-copy");
          await fs.rm(path.join(dir, "environment/config.json"));
          return dir;
        },
        /^environment\/Dockerfile line 9: COPY source config\.json does not exist in environment\/$/,
      ],
      [
        "the Dockerfile has no FROM",
        async () => {
          const dir = await fixtureCopy("hello-api", "no-from");
          await fs.writeFile(path.join(dir, "environment/Dockerfile"), "WORKDIR /app\n");
          return dir;
        },
        /^environment\/Dockerfile: line 1: WORKDIR before the first FROM$/,
      ],
      [
        "tests/test.sh is missing",
        async () => {
          const dir = await fixtureCopy("hello-api", "no-tests");
          await fs.rm(path.join(dir, "tests"), { recursive: true });
          return dir;
        },
        /no-tests: missing tests\/test\.sh \(the verifier's entry point\)$/,
      ],
      ["the path is not a directory", () => Promise.resolve(path.join(tmp, "nowhere")), /nowhere: not a directory$/],
    ];
    for (const [what, make, message] of cases) {
      it(what, async () => {
        const dir = await make();
        const [tasksBefore, copiesBefore] = await Promise.all([listTasks(), listDir(path.join(dataDir, "tasks"))]);
        const error = await importHarborTask(dir).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(HarborTaskError);
        expect((error as Error).message).toMatch(message);
        expect(await listTasks()).toEqual(tasksBefore);
        expect(await listDir(path.join(dataDir, "tasks"))).toEqual(copiesBefore);
      });
    }

    it("a name already taken by a built-in task", async () => {
      await upsertTask({
        name: "taken-name",
        title: "built in",
        instruction: "x",
        source: "builtin",
        environment: { base: { kind: "host" }, setup: [], workdir: "/workspace", copies: [], env: {} },
        verifier: { command: "true", timeoutMs: 1000, format: "exit-code" },
      });
      const dir = await fixtureCopy("hello-api", "Taken_Name");
      await expect(importHarborTask(dir)).rejects.toThrow(/^a builtin task is already named taken-name; set another \[metadata\] name in task\.toml$/);
      expect(await listDir(path.join(dataDir, "tasks"))).toEqual(["hello-api"]);
    });
  });
});

describe("checkSolution on the local driver (host base)", () => {
  let driver: SandboxDriver;
  beforeAll(async () => {
    driver = createLocalDriver({ dataDir: path.join(tmp, "sandbox") });
    await driver.init();
  });
  afterAll(async () => {
    await driver?.close();
  });

  it("the solution earns reward 1 and the untouched start earns 0", async () => {
    const { task } = await importHarborTask(await fixtureCopy("hello-api", "hello-api-local"), { baseOverride: { kind: "host" } });
    const check = await checkSolution(task, driver, { verifyStart: true });
    expect(check.solve, check.solve.outputTail).toMatchObject({ exitCode: 0, timedOut: false });
    expect(check.result, check.result.feedback).toMatchObject({ reward: 1, passed: TEST_COUNT, total: TEST_COUNT });
    expect(check.startResult).toMatchObject({ reward: 0, total: TEST_COUNT });
    // The environment's own test (the RUN seeded the data) passes before any fix; the API tests do not.
    expect(check.startResult!.passed).toBeGreaterThanOrEqual(1);
    expect(check.startResult!.passed).toBeLessThan(TEST_COUNT);
    // The answer key is not left for the verifier (or a reviewer) to find.
    expect(await driver.readCheckpointFile(check.solvedCheckpointRef, "/solution/solve.sh")).toBeNull();
    expect((await driver.readCheckpointFile(check.solvedCheckpointRef, "/app/api.py"))?.toString()).toMatch(/parse_qs/);
  });

  it("replays globbed COPY sources and unpacks a local archive ADDed after a RUN", async () => {
    const dir = await fixtureCopy("hello-api", "hello-api-extras");
    const env = path.join(dir, "environment");
    await fs.mkdir(path.join(tmp, "vendor"), { recursive: true });
    await fs.writeFile(path.join(tmp, "vendor/VERSION"), "3.1\n");
    execFileSync("tar", ["-czf", path.join(env, "vendor.tar.gz"), "-C", path.join(tmp, "vendor"), "VERSION"]);
    await fs.appendFile(path.join(env, "Dockerfile"), "COPY seed/*.json /opt/seed-copy\nADD vendor.tar.gz /opt/vendor\nRUN cat /opt/vendor/VERSION > /opt/version.txt\n");
    const { task, warnings } = await importHarborTask(dir, { baseOverride: { kind: "host" } });
    expect(warnings).toContain("environment/Dockerfile line 19: this COPY follows the RUN at line 13; copies are applied before all RUN commands");

    const { sandbox, start } = await prepareStart(task, driver);
    await sandbox.destroy();
    const read = async (p: string) => (await driver.readCheckpointFile(start.ref, p))?.toString() ?? null;
    expect(JSON.parse((await read("/opt/seed-copy/users.json")) ?? "[]")).toHaveLength(3);
    expect(await read("/opt/version.txt")).toBe("3.1\n");
    // The archive was staged for unpacking and is gone from the image, as Docker never puts it there.
    expect(await read("/opt/vendor/VERSION")).toBe("3.1\n");
    expect((await driver.changes(start.ref, null)).filter((c) => c.path.startsWith("/.sprout-import") && c.kind !== "deleted")).toEqual([]);
  });
});

describe("checkSolution on the docker driver", () => {
  let driver: SandboxDriver;
  const docker = new Docker();
  beforeAll(async () => {
    execFileSync("bash", [path.join(repo, "scripts/ensure-docker.sh")], { stdio: ["ignore", "inherit", "inherit"] });
    execFileSync("bash", [path.join(repo, "scripts/ensure-rootfs.sh")], { stdio: ["ignore", "ignore", "inherit"] });
    driver = createDockerDriver({ scope: DOCKER_SCOPE });
    await driver.init();
  }, 15 * 60_000);
  afterAll(async () => {
    await driver?.close();
    await driver?.collect([]);
    const left = await docker.listContainers({ all: true, filters: { label: [`sprout.scope=${DOCKER_SCOPE}`] } });
    expect(left).toEqual([]);
  });

  it("the solution earns reward 1 and the untouched start earns 0", async () => {
    const { task } = await importHarborTask(await fixtureCopy("hello-api", "hello-api-docker"), { baseOverride: { kind: "image", ref: "sprout-base:bookworm" } });
    const check = await checkSolution(task, driver, { verifyStart: true });
    expect(check.solve, check.solve.outputTail).toMatchObject({ exitCode: 0, timedOut: false });
    expect(check.result, check.result.feedback).toMatchObject({ reward: 1, passed: TEST_COUNT, total: TEST_COUNT });
    expect(check.startResult).toMatchObject({ reward: 0, total: TEST_COUNT });
  }, 5 * 60_000);
});
