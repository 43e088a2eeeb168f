/**
 * Preloaded (`--import`) into a bot process the start-up bench spawns: answers the bench's
 * `{ memoryProbe: true }` over the IPC channel with this process's memory, so heap and external
 * memory are read from inside without changing what the bot loads. `gc: true` runs a full
 * collection first (the process is started with --expose-gc for that), so "heap" is what is
 * live, not what has not been collected yet.
 */
interface ProbeRequest {
  memoryProbe: true;
  gc?: boolean;
}

function isProbeRequest(message: unknown): message is ProbeRequest {
  return typeof message === 'object' && message !== null && 'memoryProbe' in message;
}

process.on('message', (message: unknown) => {
  if (!isProbeRequest(message)) return;
  const collect = (globalThis as { gc?: () => void }).gc;
  if (message.gc === true) collect?.();
  process.send?.({ memoryProbe: process.memoryUsage() });
});
// The channel must not keep the bot alive when it shuts down on its own.
process.channel?.unref();
