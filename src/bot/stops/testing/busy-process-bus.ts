import type { ControlBus } from '../../../core/control-bus.ts';

/**
 * One process's view of a shared ControlBus while that process is busy (its event loop held,
 * or its NOTIFY slow): what it publishes goes out at once, what reaches it waits until
 * `catchUp`, then arrives in order. Tests use it to make a streaming process answer a stop
 * late, with no real waiting.
 */
export class BusyProcessBus implements ControlBus {
  private readonly bus: ControlBus;
  private readonly held: Array<() => void> = [];
  private busy = true;

  constructor(bus: ControlBus) {
    this.bus = bus;
  }

  get shared(): boolean {
    return this.bus.shared;
  }

  /** How many messages wait for this process. */
  get waiting(): number {
    return this.held.length;
  }

  publish(topic: string, payload: unknown): Promise<void> {
    return this.bus.publish(topic, payload);
  }

  subscribe(topic: string, listener: (payload: unknown) => void): () => void {
    return this.bus.subscribe(topic, (payload) => {
      if (this.busy) this.held.push(() => listener(payload));
      else listener(payload);
    });
  }

  /** The process is free again: it hears what waited, in order, and what comes next at once. */
  catchUp(): void {
    this.busy = false;
    for (const deliver of this.held.splice(0)) deliver();
  }
}
