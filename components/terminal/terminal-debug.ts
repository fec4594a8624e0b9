/** What tests and the benchmark reach through `window.sproutTerminals` (the screen's text, a dropped connection). */
export interface TerminalDebugHandle {
  drop(): void;
  text(): string;
  /** Times the page's socket attached (1 after opening, +1 per reattach). */
  attaches(): number;
}

declare global {
  interface Window {
    sproutTerminals?: Map<string, TerminalDebugHandle>;
  }
}

export function registerDebugHandle(sessionId: string, handle: TerminalDebugHandle): () => void {
  window.sproutTerminals ??= new Map();
  window.sproutTerminals.set(sessionId, handle);
  return () => {
    window.sproutTerminals?.delete(sessionId);
  };
}

/** Marks a step of opening a terminal on the page's timeline (`sprout-terminal:<step>`), for DevTools and the benchmark. */
export function markOpenStep(step: string): void {
  performance.mark(`sprout-terminal:${step}`);
}
