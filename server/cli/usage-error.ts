/** A mistake in how a command was called; printed as one line, without a stack. */
export class UsageError extends Error {
  override name = "UsageError";
}
