import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../core/logger.ts';
import { LogOutput } from '../logging/log-output.ts';
import { installProcessFaultHandlers } from './process-faults.ts';
import type { ProcessExit } from './process-exit.ts';

/** A stdout whose reader went away: every write fails with EPIPE, reported as an error event. */
class ClosedPipe extends EventEmitter {
  writes = 0;
  write(): boolean {
    this.writes += 1;
    const error = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    queueMicrotask(() => this.emit('error', error));
    return false;
  }
}

function setup() {
  const pipe = new ClosedPipe();
  const output = new LogOutput(pipe);
  const source = new EventEmitter();
  const failures: string[] = [];
  const told: string[] = [];
  const exit = { fail: (message: string) => failures.push(message) } as unknown as ProcessExit;
  installProcessFaultHandlers({
    source,
    logger: silentLogger,
    output,
    exit,
    tellOperator: (line) => told.push(line),
  });
  return { pipe, output, source, failures, told };
}

describe('process faults', () => {
  it('ends the process on an uncaught exception', () => {
    const { source, failures } = setup();
    source.emit('uncaughtException', new Error('boom'));
    expect(failures).toEqual([expect.stringMatching(/^uncaught exception/) as string]);
  });

  it('logs an unhandled rejection and goes on', () => {
    const { source, failures } = setup();
    source.emit('unhandledRejection', new Error('later'));
    expect(failures).toEqual([]);
  });

  it('stops writing after the first EPIPE and exits once, instead of looping', async () => {
    const { pipe, output, failures, told } = setup();
    output.write('one\n');
    await Promise.resolve();
    for (let index = 0; index < 100; index += 1) output.write('more\n');
    await Promise.resolve();
    expect(pipe.writes).toBe(1);
    expect(output.closed).toBe(true);
    expect(failures).toEqual(['log output closed: exiting']);
    expect(told).toEqual(['log output closed (EPIPE): exiting\n']);
  });
});
