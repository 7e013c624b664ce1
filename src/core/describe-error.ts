/** The one-line message of anything thrown, for logs and CLI output (never a stack, never the value itself). */
export const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));
