import { describe, expect, it } from "vitest";
import { DockerfileSyntaxError, parseDockerfile, type DockerfileRun } from "./parse-dockerfile";

const runs = (text: string) => parseDockerfile(text).steps.filter((s): s is DockerfileRun => s.kind === "run");

describe("parseDockerfile", () => {
  it("reads a typical Terminal-Bench environment", () => {
    const parsed = parseDockerfile(`# syntax=docker/dockerfile:1
FROM ubuntu:24.04

WORKDIR /app
ENV PYTHONUNBUFFERED=1 \\
    GREETING="hello world"
COPY app.py requirements.txt ./
COPY data /app/data
RUN mkdir -p /app/logs && \\
    echo ok > /app/logs/boot.txt
CMD ["sleep", "infinity"]
`);
    expect(parsed.baseImage).toBe("ubuntu:24.04");
    expect(parsed.workdir).toBe("/app");
    expect(parsed.env).toEqual({ PYTHONUNBUFFERED: "1", GREETING: "hello world" });
    expect(parsed.steps).toEqual([
      { kind: "copy", line: 7, source: "app.py", dest: "/app/", extract: false },
      { kind: "copy", line: 7, source: "requirements.txt", dest: "/app/", extract: false },
      { kind: "copy", line: 8, source: "data", dest: "/app/data", extract: false },
      { kind: "run", line: 9, command: "mkdir -p /app/logs &&     echo ok > /app/logs/boot.txt", workdir: "/app", env: { PYTHONUNBUFFERED: "1", GREETING: "hello world" } },
    ]);
    expect(parsed.warnings).toEqual([expect.stringMatching(/^line 11: CMD ignored: the sandbox starts no main process/)]);
  });

  it("substitutes ARG defaults and earlier ENV values, per Docker's rules", () => {
    const parsed = parseDockerfile(`ARG BASE=python:3.12-slim
FROM $BASE
ARG APP_HOME=/srv/app
ARG NOVALUE
ENV HOME_DIR=\${APP_HOME} PATH=/opt/venv/bin:$PATH
ENV A=1 B=$A
ENV LEGACY value with  spaces
ENV QUOTED='$APP_HOME' ESCAPED=\\$APP_HOME DEFAULTED=\${MISSING:-fallback}
WORKDIR \${APP_HOME}
WORKDIR sub
`);
    expect(parsed.baseImage).toBe("python:3.12-slim");
    expect(parsed.workdir).toBe("/srv/app/sub");
    expect(parsed.env).toEqual({
      HOME_DIR: "/srv/app",
      PATH: "/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      A: "1",
      // B sees A as it was before its own line: unset.
      B: "",
      LEGACY: "value with  spaces",
      QUOTED: "$APP_HOME",
      ESCAPED: "$APP_HOME",
      DEFAULTED: "fallback",
    });
    expect(parsed.warnings).toEqual([
      "line 4: ARG NOVALUE has no default and build arguments are not supported; it is empty",
      "line 6: $A is not set by the Dockerfile; it was replaced by an empty string",
    ]);
  });

  it("keeps each RUN's own working directory and build environment, ARGs included", () => {
    const steps = runs(`FROM debian:bookworm
ARG DEBIAN_FRONTEND=noninteractive
RUN echo first
WORKDIR /opt/tool
ENV MODE=build
RUN ["python3", "-c", "print('it''s')"]
ENV MODE=run
`);
    expect(steps).toEqual([
      { kind: "run", line: 3, command: "echo first", workdir: "/", env: { DEBIAN_FRONTEND: "noninteractive" } },
      { kind: "run", line: 6, command: `python3 -c 'print('\\''it'\\'''\\''s'\\'')'`, workdir: "/opt/tool", env: { DEBIAN_FRONTEND: "noninteractive", MODE: "build" } },
    ]);
  });

  it("reads heredocs, comments inside continuations and RUN flags", () => {
    const parsed = parseDockerfile(`FROM alpine
RUN apt-get update && \\
# a comment Docker drops
    true
RUN <<EOF
set -e
echo "from a heredoc"
EOF
RUN python3 - <<'PY'
print(1)
PY
RUN --mount=type=cache,target=/root/.cache pip --version
`);
    const commands = parsed.steps.map((s) => (s.kind === "run" ? s.command : ""));
    expect(commands).toEqual(["apt-get update &&     true", 'set -e\necho "from a heredoc"', "python3 - <<'PY'\nprint(1)\nPY", "pip --version"]);
    expect(parsed.warnings).toEqual(["line 12: RUN --mount ignored"]);
  });

  it("notes ignored COPY flags and skips what it cannot copy", () => {
    const parsed = parseDockerfile(`FROM ubuntu:24.04 AS build
RUN make
FROM ubuntu:24.04
WORKDIR /w
COPY --chown=app:app src/ .
COPY --from=build /out/bin /usr/local/bin/
ADD https://example.com/x.tgz /opt/
ADD vendor.tar.gz /opt/vendor
ADD ["notes file.txt", "/docs/"]
COPY *.py /w/lib
COPY ../secret /x
USER app
FOO bar
`);
    expect(parsed.steps).toEqual([
      { kind: "copy", line: 5, source: "src", dest: "/w/", extract: false },
      { kind: "copy", line: 8, source: "vendor.tar.gz", dest: "/opt/vendor", extract: true },
      { kind: "copy", line: 9, source: "notes file.txt", dest: "/docs/", extract: false },
      { kind: "copy", line: 10, source: "*.py", dest: "/w/lib/", extract: false },
    ]);
    expect(parsed.warnings).toEqual([
      "line 5: COPY --chown ignored: files keep their modes from the task directory and belong to root",
      "line 6: COPY --from=build copies from another image or stage, which is not supported; skipped",
      "line 7: ADD of the URL https://example.com/x.tgz is not supported (sandboxes have no network); skipped",
      "line 11: COPY source ../secret is outside the build context; skipped",
      "line 12: USER ignored: commands run as root in the sandbox",
      "line 13: FOO ignored (not a supported instruction)",
      "multi-stage build: only the final stage (line 3) is imported",
    ]);
  });

  it("lets a stage build on an earlier one", () => {
    const text = "FROM python:3.12 AS base\nWORKDIR /app\nRUN pip --version\nFROM base\nRUN echo more\n";
    const parsed = parseDockerfile(text);
    expect(parsed.baseImage).toBe("python:3.12");
    expect(parsed.workdir).toBe("/app");
    expect(runs(text).map((r) => r.command)).toEqual(["pip --version", "echo more"]);
  });

  it("honours the escape directive", () => {
    expect(runs("# escape=`\nFROM scratch\nRUN echo a `\n  b\n")[0]?.command).toBe("echo a   b");
  });

  it("rejects what is not a Dockerfile", () => {
    expect(() => parseDockerfile("")).toThrow(DockerfileSyntaxError);
    expect(() => parseDockerfile("# only a comment\n")).toThrow(/no FROM instruction/);
    expect(() => parseDockerfile("RUN echo\nFROM x\n")).toThrow(/line 1: RUN before the first FROM/);
    expect(() => parseDockerfile("FROM x\nCOPY onlyone\n")).toThrow(/line 2: COPY needs a source and a destination/);
    expect(() => parseDockerfile("FROM x\nENV\n")).toThrow(/line 2: ENV needs a name and a value/);
  });
});
