/**
 * Waits until `condition` holds, checking after every turn of the event loop: for code driven
 * by real I/O (a database, a child process) between manual-clock steps. It never waits for
 * time to pass on purpose; the deadline only turns a hang into a readable failure.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  options: { timeoutMs?: number; description?: string } = {},
): Promise<void> {
  const deadline = performance.now() + (options.timeoutMs ?? 10_000);
  for (let turn = 0; performance.now() < deadline; turn += 1) {
    if (await condition()) return;
    // Spin on immediates at first; then yield to the timers phase too, gently.
    await new Promise((resolve) => (turn < 200 ? setImmediate(resolve) : setTimeout(resolve, 1)));
  }
  throw new Error(`condition never held: ${options.description ?? condition.toString()}`);
}
