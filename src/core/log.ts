// The lines a Tusk process prints (start-up, requests, databases, shutdown), in one of two formats:
// text for a terminal (info on stdout, warnings and errors on stderr, as before), or `--log json`:
// every line one JSON object with `time` (ISO 8601) and `level`, on stdout, for a log collector.
// A line at level `debug` is expected noise (the engine's connections ending while Tusk stops):
// never printed.

export type LogFormat = 'text' | 'json';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  readonly format: LogFormat;
  /** One line: `message` as text, or `{time, level, msg, ...fields}` as JSON. */
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface LoggerOptions {
  /** Where lines go (default: the process's stdout and stderr). */
  stdout?: (line: string) => void;
  stderr?: (line: string) => void;
  now?: () => Date;
}

export function createLogger(format: LogFormat = 'text', options: LoggerOptions = {}): Logger {
  const stdout = options.stdout ?? ((line: string) => console.log(line));
  const stderr = options.stderr ?? ((line: string) => console.error(line));
  const now = options.now ?? (() => new Date());
  const log = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (level === 'debug') return;
    if (format === 'json') stdout(JSON.stringify({ time: now().toISOString(), level, msg: message, ...fields }));
    else (level === 'info' ? stdout : stderr)(message);
  };
  return {
    format,
    log,
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}
