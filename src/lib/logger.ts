// Structured logs: one JSON object per line on stdout, so any collector can read them.

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

type LogFields = Record<string, unknown>;

export interface Logger {
  /** Whether a line at `level` is written: lets a per-request caller skip building its fields. */
  enabled(level: Exclude<LogLevel, "silent">): boolean;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => console.log(line),
): Logger {
  const emit = (at: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) => {
    if (rank[at] < rank[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, msg, ...fields }));
  };
  return {
    enabled: (at) => rank[at] >= rank[level],
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}

export const silentLogger: Logger = createLogger("silent");

/**
 * What a log line may say of an unexpected error: the innermost cause's kind and message and the
 * stack frames. A query wrapper's own message is skipped: it carries the SQL and its parameters.
 */
export function describeError(error: unknown): { error: string; message: string; frames: string[] } {
  let root = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  if (!(root instanceof Error))
    return { error: typeof root, message: String(root).slice(0, 300), frames: [] };
  const frames = (error instanceof Error ? (error.stack ?? "") : "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.startsWith("at "))
    .slice(0, 15);
  return { error: root.name, message: root.message.slice(0, 300), frames };
}
