// The lines a Tusk process prints (src/core/log.ts): text by default, info on stdout and warnings
// and errors on stderr; `--log json` puts every line on stdout as one object with its level; a
// debug line (the expected noise of a stop) is never printed in either format.
import { describe, expect, it } from 'vitest';
import { createLogger, type LogFormat } from '../../src/core/log.js';

function capture(format?: LogFormat) {
  const out: string[] = [];
  const err: string[] = [];
  const logger = createLogger(format, {
    stdout: (l) => out.push(l),
    stderr: (l) => err.push(l),
    now: () => new Date('2026-01-02T03:04:05.000Z'),
  });
  return { logger, out, err };
}

describe('the logger', () => {
  it('writes text by default: info on stdout, warnings and errors on stderr, as given', () => {
    const { logger, out, err } = capture();
    expect(logger.format).toBe('text');
    logger.info('started');
    logger.warn('careful');
    logger.error('broken');
    logger.log('warn', 'also careful');
    expect(out).toEqual(['started']);
    expect(err).toEqual(['careful', 'broken', 'also careful']);
  });

  it('writes one JSON object per line on stdout in json, with time, level, message and fields', () => {
    const { logger, out, err } = capture('json');
    logger.info('started', { port: 4010 });
    logger.warn('careful');
    logger.error('broken');
    expect(err).toEqual([]);
    expect(out.map((l) => JSON.parse(l))).toStrictEqual([
      { time: '2026-01-02T03:04:05.000Z', level: 'info', msg: 'started', port: 4010 },
      { time: '2026-01-02T03:04:05.000Z', level: 'warn', msg: 'careful' },
      { time: '2026-01-02T03:04:05.000Z', level: 'error', msg: 'broken' },
    ]);
  });

  it.each(['text', 'json'] as const)('never prints a debug line (%s)', (format) => {
    const { logger, out, err } = capture(format);
    logger.log('debug', 'a connection ended while stopping');
    expect([...out, ...err]).toEqual([]);
  });
});
