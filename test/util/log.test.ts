// The JSON-lines logger: levels, one object per line, secrets and bytes never written.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type LogLevel } from '../../src/util/log.js';

function capture(level?: LogLevel) {
  const lines: string[] = [];
  const log = createLogger({
    level,
    clock: () => 0,
    sink: { write: (line: string) => lines.push(line) },
    base: { service: 'test' },
  });
  return { lines, log, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('log', () => {
  it('writes one JSON object per line with time, level, message and fields', () => {
    const { lines, log, entries } = capture();
    log.info({ requestId: 'r1', status: 200 }, 'done');
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('\n') && !lines[0]!.slice(0, -1).includes('\n'));
    assert.deepEqual(entries()[0], {
      time: '1970-01-01T00:00:00.000Z',
      level: 'info',
      msg: 'done',
      service: 'test',
      requestId: 'r1',
      status: 200,
    });
  });

  it('drops lines below its level', () => {
    const { log, entries } = capture('warn');
    log.debug({}, 'd');
    log.info({}, 'i');
    log.warn({}, 'w');
    log.error({}, 'e');
    assert.deepEqual(
      entries().map((e) => e.level),
      ['warn', 'error'],
    );
  });

  it('silent writes nothing', () => {
    const { log, lines } = capture('silent');
    log.error({}, 'e');
    assert.equal(lines.length, 0);
  });

  it('never writes secret-looking fields or bytes, at any depth', () => {
    const { log, lines, entries } = capture();
    const secret = 'c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1ub3QtbGVhaw';
    log.info(
      {
        userHandleKey: secret,
        password: secret,
        token: secret,
        localBlobKeys: [secret],
        nested: { apiKey: secret, deeper: { client_secret: secret } },
        raw: Buffer.from(secret),
        localBlobKeyIds: ['k1'],
      },
      'careless',
    );
    assert.ok(!lines[0]!.includes(secret), lines[0]);
    const entry = entries()[0]!;
    assert.equal(entry.userHandleKey, '[redacted]');
    assert.equal(entry.raw, '[bytes]');
    assert.deepEqual(entry.localBlobKeyIds, ['k1'], 'key ids are not secrets');
  });

  it('writes errors as name, message and stack; survives cycles and odd values', () => {
    const { log, entries } = capture();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    log.error({ err: new TypeError('boom'), cyclic, big: 10n, fn: () => 1 }, 'failed');
    const entry = entries()[0]!;
    assert.deepEqual((entry.err as Record<string, unknown>).name, 'TypeError');
    assert.equal((entry.err as Record<string, unknown>).message, 'boom');
    assert.equal(entry.big, '10');
    assert.ok(!('fn' in entry));
  });

  it('a failing sink never throws into the caller', () => {
    const log = createLogger({
      sink: {
        write: () => {
          throw new Error('closed');
        },
      },
    });
    assert.doesNotThrow(() => log.error({}, 'x'));
  });
});
