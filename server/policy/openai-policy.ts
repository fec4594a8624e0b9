import { z } from "zod";
import { PolicyError, type Policy, type PolicyRequest, type PolicyTurn } from "./types";

/** Settings of an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, OpenAI …). */
export interface OpenAiPolicyOptions {
  baseUrl: string;
  model: string;
  apiKey?: string;
  temperature?: number;
  maxTokens?: number;
  /** Ask for log-probabilities (kept when the server returns them). */
  logprobs?: boolean;
  maxRetries?: number;
  /** First backoff; doubles per retry, with jitter, capped at 30 s. */
  retryBaseMs?: number;
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
}

const responseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z
            .array(z.object({ id: z.string().optional(), type: z.string().optional(), function: z.object({ name: z.string(), arguments: z.string().nullish() }) }))
            .nullish(),
        }),
        logprobs: z
          .object({ content: z.array(z.object({ token: z.string(), logprob: z.number() })).nullish() })
          .nullish(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() }).nullish(),
});

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    }, { once: true });
  });

function retryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** A policy backed by any OpenAI-compatible `/chat/completions` endpoint with tool calling. */
export function createOpenAiPolicy(options: OpenAiPolicyOptions): Policy {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const doFetch = options.fetch ?? fetch;
  const maxRetries = options.maxRetries ?? 5;
  const base = options.retryBaseMs ?? 500;

  async function once(request: PolicyRequest): Promise<{ status: number; body: unknown; retryAfterMs?: number }> {
    const timeout = AbortSignal.timeout(options.requestTimeoutMs ?? 600_000);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const res = await doFetch(url, {
      method: "POST",
      signal,
      headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify({
        model: options.model,
        messages: request.messages,
        ...(request.tools.length > 0 ? { tools: request.tools, tool_choice: "auto" } : {}),
        temperature: options.temperature ?? 0.7,
        ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
        ...(options.logprobs ? { logprobs: true } : {}),
        seed: request.seed,
      }),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the error message
    }
    const retryAfter = Number(res.headers.get("retry-after"));
    return { status: res.status, body, retryAfterMs: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined };
  }

  return {
    name: `openai:${options.model}`,
    async next(request: PolicyRequest): Promise<PolicyTurn> {
      let lastError = "";
      for (let attempt = 0; attempt <= maxRetries; attempt++) {
        if (attempt > 0) {
          const backoff = Math.min(30_000, base * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
          await sleep(backoff, request.signal);
        }
        let result: Awaited<ReturnType<typeof once>>;
        try {
          result = await once(request);
        } catch (error) {
          if (request.signal?.aborted) throw error;
          lastError = `cannot reach ${url}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`;
          continue;
        }
        if (result.status >= 400) {
          const detail = typeof result.body === "string" ? result.body.slice(0, 300) : JSON.stringify(result.body).slice(0, 300);
          lastError = `${url} answered ${result.status}: ${detail}`;
          if (!retryable(result.status)) break;
          if (result.retryAfterMs) await sleep(Math.min(result.retryAfterMs, 60_000), request.signal);
          continue;
        }
        const parsed = responseSchema.safeParse(result.body);
        if (!parsed.success) throw new PolicyError(`${url} answered something that is not a chat completion: ${parsed.error.issues[0]?.message ?? ""}`);
        const choice = parsed.data.choices[0]!;
        const call = choice.message.tool_calls?.[0];
        return {
          message: choice.message.content ?? "",
          toolCall: call ? { id: call.id ?? `call_${Date.now()}`, name: call.function.name, arguments: call.function.arguments ?? "" } : null,
          promptTokens: parsed.data.usage?.prompt_tokens ?? 0,
          completionTokens: parsed.data.usage?.completion_tokens ?? 0,
          ...(choice.logprobs?.content ? { logprobs: choice.logprobs.content } : {}),
        };
      }
      throw new PolicyError(`the model call failed after ${maxRetries + 1} attempts: ${lastError}`);
    },
  };
}
