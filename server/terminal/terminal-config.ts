import { env } from "../config/env";

/** Limits of live terminals (SPROUT_TERMINAL_IDLE_MS, SPROUT_MAX_TERMINALS, SPROUT_TERMINAL_GRACE_MS). */
export interface TerminalConfig {
  /** A terminal with no input for this long ends. */
  idleMs: number;
  /** Terminals that may run at once (each is a sandbox). */
  maxTerminals: number;
  /** After the page's socket closes, a reload within this long reattaches. */
  graceMs: number;
}

export function terminalConfig(): TerminalConfig {
  const e = env();
  return { idleMs: e.SPROUT_TERMINAL_IDLE_MS, maxTerminals: e.SPROUT_MAX_TERMINALS, graceMs: e.SPROUT_TERMINAL_GRACE_MS };
}
