/** The terminals this browser tab has open, kept in sessionStorage so a reload reattaches to them. */
export interface TerminalTab {
  sessionId: string;
  /** What the tab says ("task · turn 3"), once the server has told. */
  label?: string;
}

const KEY = "sprout.terminals";

export function readTabs(): TerminalTab[] {
  try {
    const raw: unknown = JSON.parse(sessionStorage.getItem(KEY) ?? "[]");
    return Array.isArray(raw)
      ? raw
          .filter((t): t is TerminalTab => typeof (t as TerminalTab | null)?.sessionId === "string")
          .map((t) => ({ sessionId: t.sessionId, label: typeof t.label === "string" ? t.label : undefined }))
      : [];
  } catch {
    return [];
  }
}

export function writeTabs(tabs: readonly TerminalTab[]): void {
  sessionStorage.setItem(KEY, JSON.stringify(tabs));
}
