import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs. Secrets are redacted by path so a careless log line cannot leak a key. */
export function createLogger(level: string, opts: { bindings?: Record<string, unknown>; stderr?: boolean } = {}): Logger {
  return pino(
    {
      level,
      base: { service: 'groundwork', ...opts.bindings },
      redact: {
        paths: [
          'req.headers["x-api-key"]',
          'req.headers.authorization',
          'headers["x-api-key"]',
          'headers.authorization',
          '*.apiKey',
          '*.api_key',
          'apiKey',
          'api_key',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: opts.stderr ? 2 : 1, sync: false }),
  );
}
