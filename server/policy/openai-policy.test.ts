import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_DEFINITIONS } from "../rollout/tools";
import { createOpenAiPolicy } from "./openai-policy";

/** A local server that speaks the chat-completions protocol; each test scripts its answers. */
type Answer = { status: number; body: unknown; headers?: Record<string, string> };
let answers: ((body: Record<string, unknown>) => Answer)[] = [];
const requests: Record<string, unknown>[] = [];
let server: http.Server;
let baseUrl = "";

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const body = JSON.parse(data) as Record<string, unknown>;
      requests.push({ ...body, authorization: req.headers.authorization, path: req.url });
      const next = answers.shift() ?? ((): Answer => ({ status: 500, body: { error: "no scripted answer" } }));
      const a = next(body);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(typeof a.body === "string" ? a.body : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`;
});
afterAll(() => server.close());

const completion = (extra: Record<string, unknown> = {}) => ({
  status: 200,
  body: {
    id: "c1",
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: "Let me list the files.", tool_calls: [{ id: "call_1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }] },
        logprobs: { content: [{ token: "Let", logprob: -0.1 }] },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 321, completion_tokens: 12, total_tokens: 333 },
    ...extra,
  },
});

const request = { messages: [{ role: "user" as const, content: "fix it" }], tools: TOOL_DEFINITIONS, taskName: "t", seed: 5 };

describe("the OpenAI-compatible policy", () => {
  it("sends the model, tools and settings, and reads the tool call, usage and log-probabilities", async () => {
    answers = [() => completion()];
    requests.length = 0;
    const policy = createOpenAiPolicy({ baseUrl, model: "qwen-test", apiKey: "sk-local", temperature: 0.2, maxTokens: 512, logprobs: true });
    const turn = await policy.next(request);
    expect(turn).toEqual({
      message: "Let me list the files.",
      toolCall: { id: "call_1", name: "bash", arguments: '{"command":"ls"}' },
      promptTokens: 321,
      completionTokens: 12,
      logprobs: [{ token: "Let", logprob: -0.1 }],
    });
    expect(requests[0]).toMatchObject({ path: "/v1/chat/completions", model: "qwen-test", temperature: 0.2, max_tokens: 512, logprobs: true, authorization: "Bearer sk-local", seed: 5 });
    expect((requests[0]!.tools as unknown[]).length).toBe(5);
  });

  it("retries 429 and 5xx with backoff, then succeeds", async () => {
    answers = [() => ({ status: 429, body: { error: "slow down" }, headers: { "retry-after": "0" } }), () => ({ status: 503, body: "overloaded" }), () => completion()];
    const policy = createOpenAiPolicy({ baseUrl, model: "m", retryBaseMs: 5 });
    const turn = await policy.next(request);
    expect(turn.toolCall?.name).toBe("bash");
    expect(answers).toHaveLength(0);
  });

  it("gives up at once on a client error, saying what the server answered", async () => {
    answers = [() => ({ status: 400, body: { error: { message: "model not found" } } })];
    const policy = createOpenAiPolicy({ baseUrl, model: "nope", retryBaseMs: 5 });
    await expect(policy.next(request)).rejects.toThrow(/the model call failed after 6 attempts: .*answered 400: .*model not found/);
  });

  it("says so when the endpoint cannot be reached", async () => {
    const policy = createOpenAiPolicy({ baseUrl: "http://127.0.0.1:9/v1", model: "m", maxRetries: 1, retryBaseMs: 5 });
    await expect(policy.next(request)).rejects.toThrow(/cannot reach http:\/\/127\.0\.0\.1:9\/v1\/chat\/completions/);
  });

  it("accepts an answer without a tool call, and rejects one that is not a completion", async () => {
    answers = [
      () => ({ status: 200, body: { choices: [{ message: { content: "I think we are done." } }] } }),
      () => ({ status: 200, body: { nonsense: true } }),
    ];
    const policy = createOpenAiPolicy({ baseUrl, model: "m" });
    expect(await policy.next(request)).toMatchObject({ message: "I think we are done.", toolCall: null, promptTokens: 0 });
    await expect(policy.next(request)).rejects.toThrow(/answered something that is not a chat completion/);
  });
});
