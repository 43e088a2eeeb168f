import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { silentLogger, type Logger } from '../../core/logger.ts';
import { GatewayHealth } from '../../metrics/gateway-health.ts';
import { ManualClock } from '../../stream/testing/manual-clock.ts';
import { GatewayMonitor, type GatewayManager } from './gateway-monitor.ts';

function setup() {
  const levels: string[] = [];
  const logger: Logger = {
    ...silentLogger,
    warn: () => levels.push('warn'),
    debug: () => levels.push('debug'),
    info: () => levels.push('info'),
  };
  const fatal: number[] = [];
  const health = new GatewayHealth({ clock: new ManualClock() });
  const monitor = new GatewayMonitor({
    logger,
    health,
    onFatalClose: (_advice, code) => fatal.push(code),
  });
  const manager = new EventEmitter();
  monitor.observe(manager as unknown as GatewayManager);
  return { levels, fatal, health, monitor, manager };
}

describe('GatewayMonitor', () => {
  it('warns once per outage while discord.js retries, and again after a new session', () => {
    const { levels, manager } = setup();
    manager.emit('ready', { shardId: 0 });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      manager.emit('closed', { code: 1006, shardId: 0 });
      manager.emit('error', { error: new Error('Unexpected server response: 503'), shardId: 0 });
    }
    expect(levels).toEqual(['info', 'warn', 'debug', 'debug', 'debug', 'debug', 'debug']);
    manager.emit('resumed', { shardId: 0 });
    manager.emit('closed', { code: 4000, shardId: 0 });
    expect(levels.slice(-2)).toEqual(['info', 'warn']);
  });

  it('hands a fatal close to the process once and ignores closes while shutting down', () => {
    const { fatal, health, monitor, manager } = setup();
    manager.emit('ready', { shardId: 0 });
    manager.emit('closed', { code: 4014, shardId: 0 });
    expect(fatal).toEqual([4014]);
    expect(health.healthy()).toBe(false);
    monitor.close();
    manager.emit('closed', { code: 4004, shardId: 0 });
    expect(fatal).toEqual([4014]);
  });
});
