// @ts-check
/**
 * Preloaded (`--import`) into a bot process the start-up bench spawns: answers the bench's
 * `{ memoryProbe: true }` over the IPC channel with this process's memory, so heap and external
 * memory are read from inside without changing what the bot loads. `gc: true` runs a full
 * collection first (the process is started with --expose-gc for that), so "heap" is what is
 * live, not what has not been collected yet. Plain JavaScript on purpose: a TypeScript preload
 * would load Node's TypeScript stripper (about 17 MB of RSS) into a bot that runs without it.
 */
import process from 'node:process';

/**
 * @param {unknown} message
 * @returns {message is { memoryProbe: true, gc?: boolean }}
 */
function isProbeRequest(message) {
  return typeof message === 'object' && message !== null && 'memoryProbe' in message;
}

process.on('message', (message) => {
  if (!isProbeRequest(message)) return;
  const collect = /** @type {{ gc?: () => void }} */ (globalThis).gc;
  if (message.gc === true) collect?.();
  process.send?.({ memoryProbe: process.memoryUsage() });
});
// The channel must not keep the bot alive when it shuts down on its own.
process.channel?.unref();
