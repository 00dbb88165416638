// The exporter's logger: pino, with node_exporter's two formats (logfmt for people, json for machines).
// Messages go to stderr so stdout stays free for command output (`jobio top`, `jobio preload-path`).
import { pino, type Logger as PinoLogger } from 'pino';
import { Writable } from 'node:stream';

export type Logger = PinoLogger;
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'logfmt' | 'json';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];
export const LOG_FORMATS: readonly LogFormat[] = ['logfmt', 'json'];
export const DEFAULT_LOG_LEVEL: LogLevel = 'info';
export const DEFAULT_LOG_FORMAT: LogFormat = 'logfmt';

function logfmtValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[\s"=]/.test(text) || text === '' ? JSON.stringify(text) : text;
}

/** Rewrites pino's JSON lines as `ts=… level=… msg=… key=value` lines. */
function logfmtStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line === '') continue;
        let record: Record<string, unknown>;
        try {
          record = JSON.parse(line) as Record<string, unknown>;
        } catch {
          out.write(line + '\n');
          continue;
        }
        const { time, level, msg, ...rest } = record;
        const parts = [`ts=${new Date(Number(time)).toISOString()}`, `level=${String(level)}`];
        if (msg !== undefined) parts.push(`msg=${logfmtValue(msg)}`);
        for (const [key, value] of Object.entries(rest)) parts.push(`${key}=${logfmtValue(value)}`);
        out.write(parts.join(' ') + '\n');
      }
      done();
    },
  });
}

export function createLogger(level: LogLevel = DEFAULT_LOG_LEVEL, format: LogFormat = DEFAULT_LOG_FORMAT): Logger {
  const options = {
    level,
    base: undefined,
    formatters: { level: (label: string) => ({ level: label }) },
  };
  const destination = format === 'json' ? pino.destination({ fd: 2, sync: true }) : logfmtStream(process.stderr);
  return pino(options, destination);
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
