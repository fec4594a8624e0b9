/** Outcome colours, from the theme in app/globals.css. */
export const TONE_FILL: Record<string, string> = {
  resolved: "var(--color-resolved)",
  failed: "var(--color-failed)",
  running: "var(--color-running)",
  interrupted: "var(--color-interrupted)",
  pending: "var(--color-pending)",
};

/** The same colours as literal values, for canvas drawing (which cannot read CSS variables). */
export const TONE_HEX: Record<string, string> = {
  resolved: "#16a34a",
  failed: "#dc2626",
  running: "#2563eb",
  interrupted: "#d97706",
  pending: "#9ca3af",
  mixed: "#a16207",
};
